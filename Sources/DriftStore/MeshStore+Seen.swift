import DriftMesh
import Foundation
import GRDB

/// The seen-set: every packet key this box has heard, kept at least
/// ``MeshStoreLimits/seenMinimumRetention`` (24 h) after it was first heard and until the
/// frame's own expiry, capped at ``MeshStoreLimits/seenMaximumRetention`` (30 days).
extension MeshStore {
    /// Records that `key` was heard; `true` the first time, `false` for a duplicate.
    ///
    /// One `INSERT OR IGNORE`, so two callers racing on the same key see exactly one `true`.
    /// A duplicate does not extend the entry's retention.
    public func markSeen(_ key: PacketKey, expiresAt: Date, now: Date) throws -> Bool {
        let heard = StoredTime.milliseconds(now)
        let keepUntil = seenKeepUntil(firstHeard: now, expiresAt: expiresAt)
        return try database.writer.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO mesh_seen(origin, packet_id, first_heard, keep_until) VALUES (?, ?, ?, ?)",
                arguments: [MeshColumn.int(key.origin), MeshColumn.int(key.packetID), heard, keepUntil])
            return db.changesCount > 0
        }
    }

    /// Whether `key` is in the seen-set.
    public func isSeen(_ key: PacketKey) throws -> Bool {
        try database.writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM mesh_seen WHERE origin = ? AND packet_id = ?)",
                              arguments: [MeshColumn.int(key.origin), MeshColumn.int(key.packetID)]) ?? false
        }
    }

    /// Deletes the entries whose retention ended at or before `now`; returns how many.
    @discardableResult
    public func pruneSeen(now: Date) throws -> Int {
        try database.writer.write { db in try Self.pruneSeen(db, now: now) }
    }

    /// ``pruneSeen(now:)`` inside the caller's transaction.
    static func pruneSeen(_ db: Database, now: Date) throws -> Int {
        try db.execute(sql: "DELETE FROM mesh_seen WHERE keep_until <= ?", arguments: [StoredTime.milliseconds(now)])
        return db.changesCount
    }

    /// Entries in the seen-set (status, metrics).
    public func seenCount() throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mesh_seen") ?? 0 }
    }

    /// The end of an entry's retention, milliseconds: ≥ 24 h after first heard and ≥ the
    /// frame's expiry, ≤ the cap.
    func seenKeepUntil(firstHeard: Date, expiresAt: Date) -> Int64 {
        let heard = StoredTime.milliseconds(firstHeard)
        let minimum = heard + Int64(limits.seenMinimumRetention * 1000)
        let maximum = heard + Int64(limits.seenMaximumRetention * 1000)
        return min(max(minimum, StoredTime.milliseconds(expiresAt)), maximum)
    }
}
