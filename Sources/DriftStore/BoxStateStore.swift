import Foundation
import GRDB

/// Durable key–value facts about the box itself (its id, when it first started).
public struct BoxStateStore: Sendable {
    let database: DriftDatabase

    public init(database: DriftDatabase) {
        self.database = database
    }

    /// The value for `key`, if set.
    public func value(for key: String) throws -> String? {
        try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM boxState WHERE key = ?", arguments: [key])
        }
    }

    /// Sets `key` to `value`.
    public func set(_ value: String, for key: String) throws {
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO boxState(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", arguments: [key, value])
        }
    }

    /// The value for `key`, storing `make()` first if there is none (atomically).
    public func valueOrInsert(for key: String, make: @Sendable () -> String) throws -> String {
        try database.writer.write { db in
            if let existing = try String.fetchOne(db, sql: "SELECT value FROM boxState WHERE key = ?", arguments: [key]) {
                return existing
            }
            let value = make()
            try db.execute(sql: "INSERT INTO boxState(key, value) VALUES (?, ?)", arguments: [key, value])
            return value
        }
    }
}
