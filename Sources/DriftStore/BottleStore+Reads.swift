import DriftCore
import Foundation
import GRDB

extension BottleStore {
    /// Marks `bottle`'s chat as read by `reader` up to `now`: the lines sent until then are
    /// no longer unread for them. Later calls only move the mark forward.
    /// - Throws: ``BottleStoreError/notFound(_:)``.
    public func markRead(_ bottle: BottleID, by reader: TokenHash, at now: Date) throws {
        try database.writer.write { db in
            guard try BottleRecord.exists(db, key: bottle.description) else { throw BottleStoreError.notFound(bottle) }
            try db.execute(sql: """
                INSERT INTO chatRead(bottleID, reader, readUntil) VALUES (?, ?, ?)
                ON CONFLICT(bottleID, reader) DO UPDATE SET readUntil = max(readUntil, excluded.readUntil)
                """, arguments: [bottle.description, reader.hex, StoredTime.milliseconds(now)])
        }
    }

    /// How many lines of each chat `reader` has not seen: lines sent after their last
    /// ``markRead(_:by:at:)`` (all lines when they never looked), not counting their own
    /// (`me[bottle]`, their pseudonym in that chat). Bottles without such lines are left out.
    public func unreadCounts(in bottles: [BottleID], by reader: TokenHash, me: [BottleID: ParticipantID]) throws -> [BottleID: Int] {
        guard !bottles.isEmpty else { return [:] }
        return try database.writer.read { db in
            var result: [BottleID: Int] = [:]
            for bottle in bottles {
                let count = try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM chatMessage
                    WHERE bottleID = ?1 AND participant <> ?2
                      AND sentAt > COALESCE((SELECT readUntil FROM chatRead WHERE bottleID = ?1 AND reader = ?3), -1)
                    """, arguments: [bottle.description, me[bottle]?.hex ?? "", reader.hex]) ?? 0
                if count > 0 { result[bottle] = count }
            }
            return result
        }
    }
}
