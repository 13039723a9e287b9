import DriftMesh
import Foundation
import GRDB
import Synchronization

/// The outbox (`mesh_outbox`, frames in `mesh_outbox_frame`): messages this box originates,
/// stored before their first transmission so nothing is lost offline or across a restart.
///
/// Directed messages: ``recordAttempt(_:now:jitter:)`` after every transmission schedules the
/// next one on ``MeshStore/retrySchedule``; ``markDelivered(_:)`` on the acknowledgement
/// deletes the frames (the sender keeps no copy once delivery is confirmed). Once every
/// attempt's wait has passed without an acknowledgement, ``due(now:)`` marks the message
/// `failed`; it stays until ``prune(now:)`` after its expiry.
/// Broadcasts: ``markSent(_:now:)`` after the first transmission; reconciliation keeps
/// carrying the frames, which ``enqueue(_:destination:frames:priority:now:expiresAt:)`` held in `mesh_packets`.
extension MeshStore {
    /// Stores a new message, due at once. `frames` are the sealed fragments in order.
    ///
    /// A broadcast's frames are also held in `mesh_packets` (`fromMe`, until `expiresAt`) in
    /// the same transaction, so reconciliation serves them; this may evict others' frames.
    /// - Throws: ``MeshStoreError/invalidFragmentCount(_:count:)``, ``MeshStoreError/emptyFrame(_:)``,
    ///   ``MeshStoreError/frameTooLarge(_:bytes:limit:)``, ``MeshStoreError/expiryNotAfterCreation(_:)``,
    ///   ``MeshStoreError/duplicateMessage(_:)``.
    @discardableResult
    public func enqueue(
        _ id: PacketKey, destination: NodeID?, frames: [[UInt8]], priority: Int, now: Date, expiresAt: Date
    ) throws -> MeshOutboxEntry {
        guard (1...255).contains(frames.count) else { throw MeshStoreError.invalidFragmentCount(id, count: frames.count) }
        for (index, frame) in frames.enumerated() {
            try validate(frame, key: PacketKey(origin: id.origin, packetID: id.packetID &+ UInt32(index)))
        }
        let created = StoredTime.milliseconds(now)
        let expires = StoredTime.milliseconds(expiresAt)
        guard expires > created else { throw MeshStoreError.expiryNotAfterCreation(id) }
        let origin = MeshColumn.int(id.origin)
        let first = MeshColumn.int(id.packetID)
        let limits = self.limits
        var evicted: [PacketKey] = []
        try database.writer.write { db in
            guard try !Self.fetchExists(db, id) else { throw MeshStoreError.duplicateMessage(id) }
            try db.execute(
                sql: """
                    INSERT INTO mesh_outbox (origin, first_packet_id, destination, fragment_count, priority, state,
                                             attempts, next_attempt_at, created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, 'queued', 0, ?, ?, ?)
                    """,
                arguments: [origin, first, destination.map(MeshColumn.int), frames.count, priority, created, created, expires])
            let statement = try db.cachedStatement(
                sql: "INSERT INTO mesh_outbox_frame (origin, first_packet_id, fragment_index, frame) VALUES (?, ?, ?, ?)")
            for (index, frame) in frames.enumerated() {
                try statement.execute(arguments: [origin, first, index, Data(frame)])
            }
            guard destination == nil else { return }
            // A broadcast is also held for reconciliation, in the same transaction.
            let hold = try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO mesh_packets
                    (origin, packet_id, kind, destination, frame, priority, received_at, expires_at, from_me)
                VALUES (?, ?, ?, NULL, ?, ?, ?, ?, 1)
                """)
            for (index, frame) in frames.enumerated() {
                try hold.execute(arguments: [origin, MeshColumn.int(id.packetID &+ UInt32(index)), Int(FrameKind.broadcast.rawValue),
                                             Data(frame), priority, created, expires])
            }
            evicted = try Self.evictOverflow(db, limits: limits)
        }
        if !evicted.isEmpty {
            evictions.withLock { $0 += evicted.count }
        }
        return MeshOutboxEntry(
            id: id, destination: destination, fragmentCount: frames.count, priority: priority, state: .queued,
            attempts: 0, nextAttemptAt: StoredTime.date(created), createdAt: StoredTime.date(created),
            expiresAt: StoredTime.date(expires), lastError: nil, frames: frames)
    }

    /// The queued messages due at `now` (not expired), most urgent first, then oldest due.
    ///
    /// First marks `failed` every queued message whose attempts are used up and whose last
    /// wait has passed (a write), so the result holds only messages to transmit now.
    public func due(now: Date) throws -> [MeshOutboxEntry] {
        let stamp = StoredTime.milliseconds(now)
        let maxAttempts = retrySchedule.maxAttempts
        return try database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE mesh_outbox SET state = 'failed', last_error = ?
                    WHERE state = 'queued' AND attempts >= ? AND next_attempt_at <= ?
                    """,
                arguments: ["no acknowledgement after \(maxAttempts) attempts", maxAttempts, stamp])
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM mesh_outbox
                    WHERE state = 'queued' AND next_attempt_at <= ? AND expires_at > ?
                    ORDER BY priority DESC, next_attempt_at ASC, created_at ASC
                    """,
                arguments: [stamp, stamp])
            return try rows.map { try Self.outboxEntry(db, $0) }
        }
    }

    /// Records a transmission of a queued message: attempts += 1, next due after the
    /// schedule's delay for this attempt (plus `jitter`, plus `jitterShare` of that delay).
    /// Returns the updated entry.
    ///
    /// A message whose attempts are already used up becomes `failed` instead. A message in
    /// any state but `queued` is returned unchanged (a late call after an acknowledgement).
    /// - Throws: ``MeshStoreError/notFound(_:)``.
    @discardableResult
    public func recordAttempt(_ id: PacketKey, now: Date, jitter: Duration = .zero, jitterShare: Double = 0) throws -> MeshOutboxEntry {
        let schedule = retrySchedule
        return try database.writer.write { db in
            let entry = try Self.fetchEntry(db, id)
            guard entry.state == .queued else { return entry }
            if let delay = schedule.delay(afterAttempt: entry.attempts) {
                let next = now.addingTimeInterval(RetrySchedule.seconds(delay + max(jitter, .zero) + RetrySchedule.share(jitterShare, of: delay)))
                try db.execute(
                    sql: "UPDATE mesh_outbox SET attempts = attempts + 1, next_attempt_at = ? WHERE origin = ? AND first_packet_id = ?",
                    arguments: [StoredTime.milliseconds(next), MeshColumn.int(id.origin), MeshColumn.int(id.packetID)])
            } else {
                try Self.setState(db, id, .failed, error: "no acknowledgement after \(schedule.maxAttempts) attempts")
            }
            return try Self.fetchEntry(db, id)
        }
    }

    /// A directed message was acknowledged: `delivered`, and its frames are deleted (from the
    /// outbox and, if held, from `mesh_packets`).
    /// Returns `false` when no such message is in the outbox (already pruned, or not ours).
    @discardableResult
    public func markDelivered(_ id: PacketKey) throws -> Bool {
        try database.writer.write { db in
            guard try Self.fetchExists(db, id) else { return false }
            try Self.setState(db, id, .delivered, error: nil)
            try db.execute(sql: "DELETE FROM mesh_outbox_frame WHERE origin = ? AND first_packet_id = ?",
                           arguments: [MeshColumn.int(id.origin), MeshColumn.int(id.packetID)])
            let entry = try Self.fetchEntry(db, id)
            let forget = try db.cachedStatement(sql: "DELETE FROM mesh_packets WHERE origin = ? AND packet_id = ?")
            for key in entry.packetKeys {
                try forget.execute(arguments: [MeshColumn.int(key.origin), MeshColumn.int(key.packetID)])
            }
            return true
        }
    }

    /// A broadcast went out for the first time: `sent` (attempts += 1). Only from `queued`;
    /// returns `false` when the message is missing or in another state.
    @discardableResult
    public func markSent(_ id: PacketKey, now: Date) throws -> Bool {
        try database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE mesh_outbox SET state = 'sent', attempts = attempts + 1, next_attempt_at = ?
                    WHERE origin = ? AND first_packet_id = ? AND state = 'queued'
                    """,
                arguments: [StoredTime.milliseconds(now), MeshColumn.int(id.origin), MeshColumn.int(id.packetID)])
            return db.changesCount > 0
        }
    }

    /// Gives a message up (e.g. no route, a frame the radio refused), keeping it until expiry.
    /// Returns `false` when it is missing or already delivered.
    @discardableResult
    public func markFailed(_ id: PacketKey, error: String) throws -> Bool {
        try database.writer.write { db in
            try db.execute(
                sql: "UPDATE mesh_outbox SET state = 'failed', last_error = ? WHERE origin = ? AND first_packet_id = ? AND state <> 'delivered'",
                arguments: [error, MeshColumn.int(id.origin), MeshColumn.int(id.packetID)])
            return db.changesCount > 0
        }
    }

    /// The message with this id, if it is in the outbox.
    public func outboxEntry(_ id: PacketKey) throws -> MeshOutboxEntry? {
        try database.writer.read { db in
            guard try Self.fetchExists(db, id) else { return nil }
            return try Self.fetchEntry(db, id)
        }
    }

    /// Deletes every outbox message (any state) that expired at or before `now`; returns how many.
    @discardableResult
    public func prune(now: Date) throws -> Int {
        try database.writer.write { db in try Self.prune(db, now: now) }
    }

    /// ``prune(now:)`` inside the caller's transaction.
    static func prune(_ db: Database, now: Date) throws -> Int {
        try db.execute(sql: "DELETE FROM mesh_outbox WHERE expires_at <= ?", arguments: [StoredTime.milliseconds(now)])
        return db.changesCount
    }

    /// Messages per state.
    public func counts() throws -> MeshOutboxCounts {
        try database.writer.read { db in
            var counts = MeshOutboxCounts()
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM mesh_outbox GROUP BY state") {
                let state: String = row["state"]
                let n: Int = row["n"]
                switch MeshOutboxState(rawValue: state) {
                case .queued: counts.queued = n
                case .sent: counts.sent = n
                case .delivered: counts.delivered = n
                case .failed: counts.failed = n
                case nil: throw MeshStoreError.corruptRow(table: "mesh_outbox", column: "state", value: state)
                }
            }
            return counts
        }
    }

    // MARK: - Rows

    static func fetchExists(_ db: Database, _ id: PacketKey) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM mesh_outbox WHERE origin = ? AND first_packet_id = ?)",
                          arguments: [MeshColumn.int(id.origin), MeshColumn.int(id.packetID)]) ?? false
    }

    static func setState(_ db: Database, _ id: PacketKey, _ state: MeshOutboxState, error: String?) throws {
        try db.execute(
            sql: "UPDATE mesh_outbox SET state = ?, last_error = ? WHERE origin = ? AND first_packet_id = ?",
            arguments: [state.rawValue, error, MeshColumn.int(id.origin), MeshColumn.int(id.packetID)])
    }

    static func fetchEntry(_ db: Database, _ id: PacketKey) throws -> MeshOutboxEntry {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM mesh_outbox WHERE origin = ? AND first_packet_id = ?",
                                         arguments: [MeshColumn.int(id.origin), MeshColumn.int(id.packetID)]) else {
            throw MeshStoreError.notFound(id)
        }
        return try outboxEntry(db, row)
    }

    static func outboxEntry(_ db: Database, _ row: Row) throws -> MeshOutboxEntry {
        let id = try MeshColumn.key(row, table: "mesh_outbox", packetID: "first_packet_id")
        let stateText: String = row["state"]
        guard let state = MeshOutboxState(rawValue: stateText) else {
            throw MeshStoreError.corruptRow(table: "mesh_outbox", column: "state", value: stateText)
        }
        let destination: Int64? = row["destination"]
        let frames = try Row.fetchAll(
            db, sql: "SELECT frame FROM mesh_outbox_frame WHERE origin = ? AND first_packet_id = ? ORDER BY fragment_index",
            arguments: [MeshColumn.int(id.origin), MeshColumn.int(id.packetID)]
        ).map { MeshColumn.bytes($0, "frame") }
        return MeshOutboxEntry(
            id: id, destination: try destination.map { try MeshColumn.node($0, table: "mesh_outbox", column: "destination") },
            fragmentCount: row["fragment_count"], priority: row["priority"], state: state, attempts: row["attempts"],
            nextAttemptAt: MeshColumn.date(row, "next_attempt_at"), createdAt: MeshColumn.date(row, "created_at"),
            expiresAt: MeshColumn.date(row, "expires_at"), lastError: row["last_error"], frames: frames)
    }
}
