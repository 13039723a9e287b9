import Foundation
import GRDB

/// The gateway's offline queue (`mqtt_outbox`, migration `v7-mqtt-outbox`): MQTT messages
/// stored before they are published and removed when the broker acknowledges them (PUBACK),
/// so a broker that is away, or a restart of the box, loses nothing.
///
/// Bounded by ``limit`` rows: appending beyond it drops the oldest rows, counted in
/// ``dropped()`` (kept in the database). Every method is one transaction.
public final class MQTTOutbox: Sendable {
    /// One stored message.
    public struct Entry: Sendable, Equatable {
        public var id: Int64
        public var topic: String
        public var payload: [UInt8]
        public var qos: Int
        public var createdAt: Date
    }

    public let database: DriftDatabase
    public let limit: Int

    public init(database: DriftDatabase, limit: Int) {
        precondition(limit > 0, "an outbox holds at least one message")
        self.database = database
        self.limit = limit
    }

    /// Stores `messages` (topic, payload, QoS) in order; returns their ids. Drops the oldest rows beyond ``limit``.
    @discardableResult
    public func append(_ messages: [(topic: String, payload: [UInt8], qos: Int)], now: Date) throws -> [Int64] {
        guard !messages.isEmpty else { return [] }
        let created = StoredTime.milliseconds(now)
        return try database.writer.write { db in
            var ids: [Int64] = []
            for message in messages {
                try db.execute(sql: "INSERT INTO mqtt_outbox(topic, payload, qos, created_at) VALUES (?, ?, ?, ?)",
                               arguments: [message.topic, Data(message.payload), message.qos, created])
                ids.append(db.lastInsertedRowID)
            }
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mqtt_outbox") ?? 0
            if count > limit {
                let excess = count - limit
                try db.execute(sql: "DELETE FROM mqtt_outbox WHERE id IN (SELECT id FROM mqtt_outbox ORDER BY id LIMIT ?)", arguments: [excess])
                try db.execute(sql: "UPDATE mqtt_outbox_stats SET dropped = dropped + ? WHERE id = 1", arguments: [excess])
            }
            return ids
        }
    }

    /// The oldest stored messages with an id above `after`, at most `limit`.
    public func pending(after: Int64 = 0, limit: Int = 256) throws -> [Entry] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, topic, payload, qos, created_at FROM mqtt_outbox WHERE id > ? ORDER BY id LIMIT ?",
                             arguments: [after, limit]).map { row in
                let payload: Data = row["payload"]
                return Entry(id: row["id"], topic: row["topic"], payload: Array(payload), qos: row["qos"],
                             createdAt: StoredTime.date(row["created_at"]))
            }
        }
    }

    /// Removes acknowledged messages.
    public func remove(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try database.writer.write { db in
            for chunk in stride(from: 0, to: ids.count, by: 500) {
                let part = ids[chunk..<min(ids.count, chunk + 500)]
                try db.execute(sql: "DELETE FROM mqtt_outbox WHERE id IN (\(part.map { _ in "?" }.joined(separator: ",")))",
                               arguments: StatementArguments(Array(part)))
            }
        }
    }

    /// Messages waiting.
    public func count() throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mqtt_outbox") ?? 0 }
    }

    /// Messages dropped to stay within ``limit``, ever.
    public func dropped() throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT dropped FROM mqtt_outbox_stats WHERE id = 1") ?? 0 }
    }

    /// The schema (`v7-mqtt-outbox`).
    static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE mqtt_outbox (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                topic TEXT NOT NULL CHECK (length(topic) BETWEEN 1 AND 65535),
                payload BLOB NOT NULL,
                qos INTEGER NOT NULL CHECK (qos IN (0, 1, 2)),
                created_at INTEGER NOT NULL
            );
            CREATE TABLE mqtt_outbox_stats (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                dropped INTEGER NOT NULL CHECK (dropped >= 0)
            );
            INSERT INTO mqtt_outbox_stats(id, dropped) VALUES (1, 0);
            """)
    }
}
