import DriftCore
import Foundation

/// Erases bottles for real: rows, media files and the write-ahead log.
///
/// The procedure (`docs/store.md`):
/// 1. one transaction deletes the bottle row; `ON DELETE CASCADE` deletes every row
///    that belongs to it, and `secure_delete=ON` zeroes the freed bytes in the pages;
/// 2. the bottle's media folder is removed, each file overwritten with zeros first;
/// 3. the WAL is checkpointed into the database file and truncated to zero bytes, so
///    the old page images that still held the content are gone too.
///
/// Step 1 comes first so a bottle disappears atomically; if the daemon stops before
/// step 2 or 3, ``sweep()`` at the next start finishes the job.
public struct BottleEraser: Sendable {
    public let store: BottleStore
    public let media: MediaStore

    public init(database: DriftDatabase, media: MediaStore) {
        store = BottleStore(database: database)
        self.media = media
    }

    /// Erases one bottle (rows, media, WAL). Erasing a bottle that is already gone is fine.
    @discardableResult
    public func erase(_ bottle: BottleID) throws -> EraseReport {
        try erase([bottle])
    }

    /// Erases several bottles with a single WAL checkpoint at the end.
    @discardableResult
    public func erase(_ bottles: [BottleID]) throws -> EraseReport {
        var rows = 0
        var files = 0
        for bottle in bottles {
            if try store.deleteRows(of: bottle) { rows += 1 }
            files += try media.removeFolder(of: bottle)
        }
        try store.database.checkpointAndTruncateWAL()
        return EraseReport(bottles: bottles, rowsDeleted: rows, filesRemoved: files, walBytesAfter: walSize())
    }

    /// Finishes interrupted erasures: bottles stored as `expired`, and media folders whose
    /// bottle row is gone. Run at start-up, before anything writes new media (a folder
    /// written just before its bottle row would look orphaned).
    @discardableResult
    public func sweep() throws -> EraseReport {
        let known = try store.allIDs()
        let orphans = media.bottleFolders().filter { !known.contains($0) }
        let expired = try store.expiredIDs()
        return try erase(Array(Set(orphans + expired)).sorted())
    }

    /// Size of the `-wal` file in bytes (`nil` in memory or when there is none).
    public func walSize() -> Int? {
        guard let path = store.database.path else { return nil }
        return (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int
    }
}

/// What one ``BottleEraser`` run did.
public struct EraseReport: Sendable, Equatable {
    /// The bottles asked for.
    public var bottles: [BottleID]
    /// Bottle rows deleted (with all their dependent rows).
    public var rowsDeleted: Int
    /// Media files removed.
    public var filesRemoved: Int
    /// Size of the WAL file after the truncating checkpoint (0 on success; `nil` in memory).
    public var walBytesAfter: Int?
}
