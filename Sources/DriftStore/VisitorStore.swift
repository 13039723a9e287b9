import DriftCore
import Foundation
import GRDB

/// The device tokens this box handed out, as SHA-256 hashes (``DriftCore/TokenHash``).
///
/// The visitor API registers a hash when it issues a token and refuses tokens it never
/// issued, so a made-up token cannot act on the box. The token itself is never stored.
public struct VisitorStore: Sendable {
    public let database: DriftDatabase

    public init(database: DriftDatabase) {
        self.database = database
    }

    /// Records a newly issued token's hash (idempotent).
    public func register(_ hash: TokenHash, at now: Date) throws {
        try database.writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO visitor(tokenHash, createdAt) VALUES (?, ?)",
                           arguments: [hash.hex, StoredTime.milliseconds(now)])
        }
    }

    /// Whether `hash` belongs to a token this box issued.
    public func isRegistered(_ hash: TokenHash) throws -> Bool {
        try database.writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM visitor WHERE tokenHash = ?)", arguments: [hash.hex]) ?? false
        }
    }

    /// How many tokens were issued (for status and tests).
    public func count() throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visitor") ?? 0 }
    }
}
