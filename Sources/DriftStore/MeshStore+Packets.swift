import DriftMesh
import Foundation
import GRDB
import Synchronization

/// Held frames (`mesh_packets`) for store-and-forward and reconciliation.
///
/// Bounded by ``MeshStoreLimits/maxHeldPackets`` rows and ``MeshStoreLimits/maxHeldBytes``
/// frame bytes: when a new frame goes over, the soonest-expiring frames of other boxes are
/// evicted first, this box's own only when nothing else is left. Evictions are counted
/// (``MeshStore/evictedCount``).
extension MeshStore {
    /// Holds `frame` under `key` (ignored if already held), then evicts to stay in bounds.
    /// - Throws: ``MeshStoreError/emptyFrame(_:)``, ``MeshStoreError/frameTooLarge(_:bytes:limit:)``.
    @discardableResult
    public func hold(
        _ key: PacketKey, kind: FrameKind, destination: NodeID?, frame: [UInt8], priority: Int,
        receivedAt: Date, expiresAt: Date, fromMe: Bool
    ) throws -> MeshHoldOutcome {
        try validate(frame, key: key)
        let limits = self.limits
        let outcome = try database.writer.write { db -> MeshHoldOutcome in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO mesh_packets
                        (origin, packet_id, kind, destination, frame, priority, received_at, expires_at, from_me)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [MeshColumn.int(key.origin), MeshColumn.int(key.packetID), Int(kind.rawValue),
                            destination.map(MeshColumn.int), Data(frame), priority,
                            StoredTime.milliseconds(receivedAt), StoredTime.milliseconds(expiresAt), fromMe])
            guard db.changesCount > 0 else { return MeshHoldOutcome(stored: false, evicted: []) }
            let evicted = try Self.evictOverflow(db, limits: limits)
            return MeshHoldOutcome(stored: !evicted.contains(key), evicted: evicted)
        }
        if !outcome.evicted.isEmpty {
            evictions.withLock { $0 += outcome.evicted.count }
        }
        return outcome
    }

    /// Keys of held frames received at or after `since`, most recent first (for digests).
    public func heldKeys(since: Date, limit: Int) throws -> [PacketKey] {
        try receipts(since: since, limit: limit).map(\.key)
    }

    /// Keys of held frames received at or after `since` with when, most recent first.
    public func receipts(since: Date, limit: Int) throws -> [MeshHeldReceipt] {
        guard limit > 0 else { return [] }
        return try database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT origin, packet_id, received_at FROM mesh_packets WHERE received_at >= ?
                    ORDER BY received_at DESC, origin, packet_id LIMIT ?
                    """,
                arguments: [StoredTime.milliseconds(since), limit]
            ).map { row in
                MeshHeldReceipt(key: try MeshColumn.key(row, table: "mesh_packets"), receivedAt: StoredTime.date(row["received_at"]))
            }
        }
    }

    /// The held frames for `keys`, in the order asked; keys not held are skipped.
    public func frames(for keys: [PacketKey]) throws -> [MeshHeldPacket] {
        guard !keys.isEmpty else { return [] }
        return try database.writer.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM mesh_packets WHERE origin = ? AND packet_id = ?")
            var packets: [MeshHeldPacket] = []
            for key in keys {
                let arguments: StatementArguments = [MeshColumn.int(key.origin), MeshColumn.int(key.packetID)]
                if let row = try Row.fetchOne(statement, arguments: arguments) {
                    packets.append(try Self.heldPacket(row))
                }
            }
            return packets
        }
    }

    /// Deletes held frames that expired at or before `now`; returns how many.
    @discardableResult
    public func dropExpired(now: Date) throws -> Int {
        try database.writer.write { db in try Self.dropExpired(db, now: now) }
    }

    /// ``dropExpired(now:)`` inside the caller's transaction.
    static func dropExpired(_ db: Database, now: Date) throws -> Int {
        try db.execute(sql: "DELETE FROM mesh_packets WHERE expires_at <= ?", arguments: [StoredTime.milliseconds(now)])
        return db.changesCount
    }

    /// Deletes the held frames of `origin` with these packet ids; returns how many.
    @discardableResult
    public func forget(origin: NodeID, packetIDs: [UInt32]) throws -> Int {
        guard !packetIDs.isEmpty else { return 0 }
        return try database.writer.write { db in
            let statement = try db.cachedStatement(sql: "DELETE FROM mesh_packets WHERE origin = ? AND packet_id = ?")
            var deleted = 0
            for packetID in packetIDs {
                try statement.execute(arguments: [MeshColumn.int(origin), MeshColumn.int(packetID)])
                deleted += db.changesCount
            }
            return deleted
        }
    }

    /// How many frames are held and their total bytes (status, metrics).
    public func heldUsage() throws -> (packets: Int, bytes: Int) {
        try database.writer.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, COALESCE(SUM(length(frame)), 0) AS bytes FROM mesh_packets")
            return (row?["n"] ?? 0, row?["bytes"] ?? 0)
        }
    }

    func validate(_ frame: [UInt8], key: PacketKey) throws {
        guard !frame.isEmpty else { throw MeshStoreError.emptyFrame(key) }
        guard frame.count <= limits.maxFrameBytes else {
            throw MeshStoreError.frameTooLarge(key, bytes: frame.count, limit: limits.maxFrameBytes)
        }
    }

    /// Evicts (others' soonest-expiring first) until both bounds hold; the evicted keys.
    static func evictOverflow(_ db: Database, limits: MeshStoreLimits) throws -> [PacketKey] {
        var evicted: [PacketKey] = []
        let usage = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, COALESCE(SUM(length(frame)), 0) AS bytes FROM mesh_packets")
        var count: Int = usage?["n"] ?? 0
        var bytes: Int = usage?["bytes"] ?? 0
        guard count > limits.maxHeldPackets || bytes > limits.maxHeldBytes else { return [] }
        var doomed: [(PacketKey, Int64, Int64)] = []
        do {
            // Collect first, delete after: the cursor is finished before any DELETE runs.
            let victims = try Row.fetchCursor(
                db,
                sql: """
                    SELECT origin, packet_id, length(frame) AS size FROM mesh_packets
                    ORDER BY from_me ASC, expires_at ASC, received_at ASC, origin, packet_id
                    """)
            while count > limits.maxHeldPackets || bytes > limits.maxHeldBytes, let row = try victims.next() {
                let key = try MeshColumn.key(row, table: "mesh_packets")
                doomed.append((key, row["origin"], row["packet_id"]))
                count -= 1
                bytes -= row["size"] as Int
            }
        }
        for (key, origin, packetID) in doomed {
            try db.execute(sql: "DELETE FROM mesh_packets WHERE origin = ? AND packet_id = ?", arguments: [origin, packetID])
            evicted.append(key)
        }
        return evicted
    }

    static func heldPacket(_ row: Row) throws -> MeshHeldPacket {
        let kindValue: Int64 = row["kind"]
        guard let raw = UInt8(exactly: kindValue), let kind = FrameKind(rawValue: raw) else {
            throw MeshStoreError.corruptRow(table: "mesh_packets", column: "kind", value: String(kindValue))
        }
        let destination: Int64? = row["destination"]
        return MeshHeldPacket(
            key: try MeshColumn.key(row, table: "mesh_packets"), kind: kind,
            destination: try destination.map { try MeshColumn.node($0, table: "mesh_packets", column: "destination") },
            frame: MeshColumn.bytes(row, "frame"), priority: row["priority"],
            receivedAt: MeshColumn.date(row, "received_at"), expiresAt: MeshColumn.date(row, "expires_at"),
            fromMe: row["from_me"])
    }
}
