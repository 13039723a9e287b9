import DriftCore
import DriftStore
import DriftSystem
import Foundation
import GRDB
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The data directory holds the box secret, bottles, chats and media: whatever umask the
/// daemon runs under, its store and media are the owner's only. Each test runs under
/// umask 0 — the most permissive — so a mode that is not set explicitly shows at once.
@Suite("Owner-only data files", .serialized)
struct OwnerOnlyFilesTests {
    /// Runs `body` with the process umask at 0, restoring it after.
    static func underOpenUmask<T>(_ body: () throws -> T) rethrows -> T {
        let previous = umask(0)
        defer { umask(previous) }
        return try body()
    }

    static func mode(_ path: String) -> mode_t? { OwnerOnlyFiles.mode(of: path) }

    @Test("the database, its WAL and shared-memory files are 0600 in a 0700 folder, whatever the umask")
    func database() throws {
        let directory = try TemporaryDirectory(prefix: "owner-only-db")
        defer { directory.remove() }
        let folder = directory.appending("data/nested")
        let path = folder + "/drift.sqlite"
        try Self.underOpenUmask {
            let database = try DriftDatabase.open(path: path)
            try database.writer.write { db in try db.execute(sql: "CREATE TABLE probe (x)") }
            #expect(Self.mode(folder) == 0o700)
            #expect(Self.mode(directory.appending("data")) == 0o700)
            #expect(Self.mode(path) == 0o600)
            #expect(Self.mode(path + "-wal") == 0o600)
            #expect(Self.mode(path + "-shm") == 0o600)
        }
    }

    @Test("an existing world-readable store is made 0600 when opened")
    func existingStoreTightened() throws {
        let directory = try TemporaryDirectory(prefix: "owner-only-old")
        defer { directory.remove() }
        let path = directory.appending("drift.sqlite")
        _ = try DriftDatabase.open(path: path)
        chmod(directory.path, 0o755)
        chmod(path, 0o644)
        _ = try DriftDatabase.open(path: path)
        #expect(Self.mode(path) == 0o600)
        #expect(Self.mode(directory.path) == 0o700)
    }

    @Test("media files are 0600 and their folders 0700, whatever the umask")
    func media() throws {
        let directory = try TemporaryDirectory(prefix: "owner-only-media")
        defer { directory.remove() }
        let media = MediaStore(dataDirectory: directory.path)
        let bottle = StoreFixtures.bottleID(7)
        let path = try MediaPath.content(bottle: bottle, fileName: "image.webp")
        try Self.underOpenUmask { try media.write([1, 2, 3], to: path) }
        #expect(Self.mode(media.filePath(path)) == 0o600)
        #expect(Self.mode(media.folderPath(of: bottle)) == 0o700)
        #expect(Self.mode(directory.appending("media")) == 0o700)
    }

    @Test("tighten takes group and other bits off everything below, never following links")
    func tighten() throws {
        let directory = try TemporaryDirectory(prefix: "owner-only-tighten")
        defer { directory.remove() }
        let outside = try TemporaryDirectory(prefix: "owner-only-outside")
        defer { outside.remove() }
        let sub = directory.appending("sub")
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: sub + "/file", contents: Data("x".utf8))
        _ = FileManager.default.createFile(atPath: outside.appending("target"), contents: Data("y".utf8))
        chmod(outside.appending("target"), 0o644)
        try FileManager.default.createSymbolicLink(atPath: sub + "/link", withDestinationPath: outside.appending("target"))
        chmod(directory.path, 0o755)
        chmod(sub, 0o775)
        chmod(sub + "/file", 0o664)
        let changed = OwnerOnlyFiles.tighten(directory.path)
        #expect(changed == 3)
        #expect(Self.mode(directory.path) == 0o700 && Self.mode(sub) == 0o700 && Self.mode(sub + "/file") == 0o600)
        #expect(Self.mode(outside.appending("target")) == 0o644, "a link's target outside is not touched")
        #expect(OwnerOnlyFiles.tighten(directory.path) == 0)
    }
}
