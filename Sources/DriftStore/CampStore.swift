import DriftMesh
import Foundation
import GRDB

/// The camp directory (`camps`) and recent camp traffic (`camp_messages`) in the box's
/// SQLite database (`docs/camps.md`).
///
/// Camps are keyed by the node id of their box: a new announce replaces name, position,
/// members and note. Any camp message from a known camp's box moves its last seen.
/// ``forget(unseenBefore:)`` drops camps not heard since a cutoff; messages stay until
/// their own expiry (``deleteExpiredMessages(now:)``) and are bounded by count, the
/// oldest non-emergency rows going first. Every method is one transaction.
public final class CampStore: Sendable {
    public let database: DriftDatabase
    /// Most camp messages kept; beyond it the oldest go (emergencies last).
    public let maxMessages: Int

    public init(database: DriftDatabase, maxMessages: Int = 200) {
        self.database = database
        self.maxMessages = max(1, maxMessages)
    }

    /// Stores `announce` as `node`'s camp, heard at `now`.
    /// - Returns: true when the camp is new to the directory.
    @discardableResult
    public func upsertAnnounce(_ announce: CampMessage.Announce, from node: NodeID, at now: Date) throws -> Bool {
        let stamp = StoredTime.milliseconds(now)
        return try database.writer.write { db in
            let known = try Bool.fetchOne(db, sql: "SELECT 1 FROM camps WHERE node_id = ?", arguments: [Int64(node.rawValue)]) ?? false
            try db.execute(
                sql: """
                    INSERT INTO camps (node_id, name, lat_e5, lon_e5, members, note, first_seen, last_seen, last_kind)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'announce')
                    ON CONFLICT(node_id) DO UPDATE SET name = excluded.name, lat_e5 = excluded.lat_e5, lon_e5 = excluded.lon_e5,
                        members = excluded.members, note = excluded.note, last_seen = MAX(last_seen, excluded.last_seen),
                        last_kind = 'announce'
                    """,
                arguments: [Int64(node.rawValue), announce.name, announce.position?.latitudeE5, announce.position?.longitudeE5,
                            Int(announce.members), announce.note, stamp, stamp])
            return !known
        }
    }

    /// Marks `node`'s camp (if known) as heard at `now` with a message of `kind`.
    public func touch(_ node: NodeID, kind: CampMessage.Kind, at now: Date) throws {
        try database.writer.write { db in
            try Self.touch(db, node: node, kind: kind, stamp: StoredTime.milliseconds(now))
        }
    }

    /// Stores a chat line, request, event or emergency and marks its camp heard; trims the
    /// list to ``maxMessages``. Returns the record as stored (with its id).
    @discardableResult
    public func record(_ message: CampMessageRecord) throws -> CampMessageRecord {
        try database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO camp_messages (node_id, camp, kind, detail, text, lat_e5, lon_e5, event_start, event_minutes,
                        received_at, expires_at, from_me)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [Int64(message.node.rawValue), message.camp, message.kind.description, message.detail, message.text,
                            message.position?.latitudeE5, message.position?.longitudeE5,
                            message.eventStart.map(StoredTime.milliseconds), message.eventMinutes,
                            StoredTime.milliseconds(message.receivedAt), StoredTime.milliseconds(message.expiresAt),
                            message.fromMe ? 1 : 0])
            var stored = message
            stored.id = db.lastInsertedRowID
            stored.receivedAt = StoredTime.normalised(message.receivedAt)
            stored.expiresAt = StoredTime.normalised(message.expiresAt)
            stored.eventStart = message.eventStart.map(StoredTime.normalised)
            if !message.fromMe {
                try Self.touch(db, node: message.node, kind: message.kind, stamp: StoredTime.milliseconds(message.receivedAt))
            }
            try db.execute(
                sql: """
                    DELETE FROM camp_messages WHERE id IN (
                        SELECT id FROM camp_messages ORDER BY (kind = 'emergency') DESC, received_at DESC, id DESC LIMIT -1 OFFSET ?)
                    """,
                arguments: [maxMessages])
            return stored
        }
    }

    /// Every camp in the directory, most recently heard first.
    public func camps() throws -> [CampRecord] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM camps ORDER BY last_seen DESC, node_id").map(Self.camp)
        }
    }

    /// Unexpired camp messages, newest first, at most `limit`.
    public func messages(now: Date, limit: Int = 50) throws -> [CampMessageRecord] {
        try database.writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM camp_messages WHERE expires_at > ? ORDER BY received_at DESC, id DESC LIMIT ?",
                arguments: [StoredTime.milliseconds(now), max(0, limit)]
            ).map(Self.message)
        }
    }

    /// Forgets every camp last heard before `cutoff`. Returns how many went.
    @discardableResult
    public func forget(unseenBefore cutoff: Date) throws -> Int {
        try database.writer.write { db in try Self.forget(db, unseenBefore: cutoff) }
    }

    /// Deletes camp messages whose expiry has passed. Returns how many went.
    @discardableResult
    public func deleteExpiredMessages(now: Date) throws -> Int {
        try database.writer.write { db in try Self.deleteExpiredMessages(db, now: now) }
    }

    /// The directory's sweep: ``forget(unseenBefore:)`` and ``deleteExpiredMessages(now:)`` in
    /// one transaction (once a minute, beside the other services that look around then).
    /// Returns how many camps were forgotten.
    @discardableResult
    public func sweep(unseenBefore cutoff: Date, now: Date) throws -> Int {
        try database.writer.write { db in
            let forgotten = try Self.forget(db, unseenBefore: cutoff)
            _ = try Self.deleteExpiredMessages(db, now: now)
            return forgotten
        }
    }

    static func forget(_ db: Database, unseenBefore cutoff: Date) throws -> Int {
        try db.execute(sql: "DELETE FROM camps WHERE last_seen < ?", arguments: [StoredTime.milliseconds(cutoff)])
        return db.changesCount
    }

    static func deleteExpiredMessages(_ db: Database, now: Date) throws -> Int {
        try db.execute(sql: "DELETE FROM camp_messages WHERE expires_at <= ?", arguments: [StoredTime.milliseconds(now)])
        return db.changesCount
    }

    /// How many camps and (stored, possibly expired) messages there are.
    public func counts() throws -> (camps: Int, messages: Int) {
        try database.writer.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM camps") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM camp_messages") ?? 0)
        }
    }

    // MARK: Rows

    static func touch(_ db: Database, node: NodeID, kind: CampMessage.Kind, stamp: Int64) throws {
        try db.execute(sql: "UPDATE camps SET last_seen = MAX(last_seen, ?), last_kind = ? WHERE node_id = ?",
                       arguments: [stamp, kind.description, Int64(node.rawValue)])
    }

    static func position(_ row: Row) -> CampPosition? {
        let latitude: Int64? = row["lat_e5"]
        let longitude: Int64? = row["lon_e5"]
        guard let latitude, let longitude, let lat = Int32(exactly: latitude), let lon = Int32(exactly: longitude) else { return nil }
        return CampPosition(latitudeE5: lat, longitudeE5: lon)
    }

    static func node(_ row: Row, table: String) throws -> NodeID {
        let raw: Int64 = row["node_id"]
        return try MeshColumn.node(raw, table: table, column: "node_id")
    }

    static func camp(_ row: Row) throws -> CampRecord {
        CampRecord(node: try node(row, table: "camps"), name: row["name"], position: position(row), members: row["members"], note: row["note"],
                   firstSeen: StoredTime.date(row["first_seen"]), lastSeen: StoredTime.date(row["last_seen"]), lastKind: row["last_kind"])
    }

    static func message(_ row: Row) throws -> CampMessageRecord {
        let kindName: String = row["kind"]
        guard let kind = CampMessage.Kind(name: kindName) else {
            throw MeshStoreError.corruptRow(table: "camp_messages", column: "kind", value: kindName)
        }
        let start: Int64? = row["event_start"]
        let fromMe: Int = row["from_me"]
        return CampMessageRecord(
            id: row["id"], node: try node(row, table: "camp_messages"), camp: row["camp"], kind: kind, detail: row["detail"],
            text: row["text"], position: position(row), eventStart: start.map(StoredTime.date), eventMinutes: row["event_minutes"],
            receivedAt: StoredTime.date(row["received_at"]), expiresAt: StoredTime.date(row["expires_at"]), fromMe: fromMe == 1)
    }
}
