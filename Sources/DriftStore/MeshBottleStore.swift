import DriftCore
import DriftMesh
import Foundation
import GRDB

/// What this box keeps about bottles that travel the mesh (`docs/mesh-bottles.md`):
///
/// - the box directory (`mesh_boxes`): other boxes' names, positions, countries and activity,
///   learned from their box-info broadcasts, for placement by name, by coordinate or by drift;
/// - bottles sent from here and not yet confirmed (`mesh_sent_bottles`): id, creator, where to
///   and when — never the content (that lives only in the mesh outbox until the destination
///   confirms, then is deleted);
/// - links (`mesh_bottle_links`): which other boxes hold part of a bottle (its creator's box,
///   its host, boxes with remote chat participants), so notices and erasure reach them;
/// - watches of bottles hosted elsewhere (`mesh_remote_watches`);
/// - remote chat replicas (`mesh_remote_lines`) of bottles hosted elsewhere;
/// - tombstones (`mesh_erased`): bottles erased here, so late frames about them are dropped.
///
/// Every method is one transaction.
public struct MeshBottleStore: Sendable {
    public let database: DriftDatabase

    public init(database: DriftDatabase) {
        self.database = database
    }

    // MARK: Box directory

    /// Adds or refreshes a box of the directory.
    public func rememberBox(_ box: MeshBox) throws {
        try database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO mesh_boxes (node_id, name, latitude, longitude, country, activity, last_seen)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (node_id) DO UPDATE SET name = excluded.name, latitude = excluded.latitude,
                        longitude = excluded.longitude, country = excluded.country, activity = excluded.activity,
                        last_seen = MAX(last_seen, excluded.last_seen)
                    """,
                arguments: [MeshColumn.int(box.node), box.name, box.position?.latitude, box.position?.longitude,
                            box.country?.rawValue, max(0, box.activity), StoredTime.milliseconds(box.lastSeen)])
        }
    }

    /// Every box of the directory, by name.
    public func boxes() throws -> [MeshBox] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM mesh_boxes ORDER BY name, node_id").map(Self.box)
        }
    }

    /// One box of the directory.
    public func box(_ node: NodeID) throws -> MeshBox? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM mesh_boxes WHERE node_id = ?", arguments: [MeshColumn.int(node)]).map(Self.box)
        }
    }

    /// Forgets boxes not heard since `cutoff`; returns how many.
    @discardableResult
    public func forgetBoxes(unseenSince cutoff: Date) throws -> Int {
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM mesh_boxes WHERE last_seen < ?", arguments: [StoredTime.milliseconds(cutoff)])
            return db.changesCount
        }
    }

    static func box(_ row: Row) throws -> MeshBox {
        let latitude: Double? = row["latitude"]
        let longitude: Double? = row["longitude"]
        let country: String? = row["country"]
        return MeshBox(
            node: try MeshColumn.node(row["node_id"], table: "mesh_boxes", column: "node_id"), name: row["name"],
            position: latitude.flatMap { lat in longitude.flatMap { try? GeoPoint(latitude: lat, longitude: $0) } },
            country: country.flatMap { try? CountryCode($0) }, activity: row["activity"], lastSeen: MeshColumn.date(row, "last_seen"))
    }

    // MARK: Sent bottles

    /// Records a bottle sent from here (its outbox packet id, for the confirmation).
    public func recordSent(_ sent: MeshSentBottle) throws {
        try database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO mesh_sent_bottles
                        (bottle_id, creator, destination, destination_name, share_code, packet_id, sent_at, delivered_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [sent.bottle.description, sent.creator.hex, MeshColumn.int(sent.destination), sent.destinationName,
                            sent.shareCode.rawValue, MeshColumn.int(sent.packetID), StoredTime.milliseconds(sent.sentAt),
                            sent.deliveredAt.map(StoredTime.milliseconds), StoredTime.milliseconds(sent.expiresAt)])
        }
    }

    /// Marks the bottle sent under `packetID` as delivered; `nil` when no such bottle.
    public func markSentDelivered(packetID: UInt32, at now: Date) throws -> MeshSentBottle? {
        try database.writer.write { db in
            try db.execute(sql: "UPDATE mesh_sent_bottles SET delivered_at = ? WHERE packet_id = ? AND delivered_at IS NULL",
                           arguments: [StoredTime.milliseconds(now), MeshColumn.int(packetID)])
            return try Row.fetchOne(db, sql: "SELECT * FROM mesh_sent_bottles WHERE packet_id = ?", arguments: [MeshColumn.int(packetID)])
                .map(Self.sent)
        }
    }

    /// Bottles `creator` sent from this box, newest first.
    public func sentBottles(by creator: TokenHash) throws -> [MeshSentBottle] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM mesh_sent_bottles WHERE creator = ? ORDER BY sent_at DESC", arguments: [creator.hex])
                .map(Self.sent)
        }
    }

    /// One sent bottle.
    public func sentBottle(_ bottle: BottleID) throws -> MeshSentBottle? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM mesh_sent_bottles WHERE bottle_id = ?", arguments: [bottle.description]).map(Self.sent)
        }
    }

    /// The bottle sent from here with this share code, if any.
    public func sentBottle(shareCode code: ShareCode) throws -> MeshSentBottle? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM mesh_sent_bottles WHERE share_code = ?", arguments: [code.rawValue]).map(Self.sent)
        }
    }

    static func sent(_ row: Row) throws -> MeshSentBottle {
        let id: String = row["bottle_id"]
        let creator: String = row["creator"]
        let code: String = row["share_code"]
        guard let bottle = BottleID(id), let hash = try? TokenHash(hex: creator), let shareCode = try? ShareCode(parsing: code) else {
            throw MeshStoreError.corruptRow(table: "mesh_sent_bottles", column: "bottle_id", value: id)
        }
        let delivered: Int64? = row["delivered_at"]
        return MeshSentBottle(
            bottle: bottle, creator: hash, destination: try MeshColumn.node(row["destination"], table: "mesh_sent_bottles", column: "destination"),
            destinationName: row["destination_name"], shareCode: shareCode,
            packetID: try MeshColumn.uint32(row["packet_id"], table: "mesh_sent_bottles", column: "packet_id"),
            sentAt: MeshColumn.date(row, "sent_at"), deliveredAt: delivered.map(StoredTime.date), expiresAt: MeshColumn.date(row, "expires_at"))
    }

    // MARK: Links

    /// Notes that `node` holds part of `bottle` in `role`, until `expiresAt`.
    /// A bottle erased here (tombstone) is not linked again; returns whether the link is stored.
    @discardableResult
    public func link(_ bottle: BottleID, node: NodeID, role: MeshBottleLink.Role, expiresAt: Date, note: String = "",
                     hostKey: [UInt8]? = nil) throws -> Bool {
        try database.writer.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM mesh_erased WHERE bottle_id = ?", arguments: [bottle.description]) == true {
                return false
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO mesh_bottle_links (bottle_id, node_id, role, expires_at, note, host_key) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [bottle.description, MeshColumn.int(node), role.rawValue, StoredTime.milliseconds(expiresAt),
                            String(note.utf8.prefix(255)) ?? "", hostKey.map { Data($0) }])
            return true
        }
    }

    /// The boxes linked to `bottle` (in `role`, or all).
    public func links(of bottle: BottleID, role: MeshBottleLink.Role? = nil) throws -> [MeshBottleLink] {
        try database.writer.read { db in
            let rows = if let role {
                try Row.fetchAll(db, sql: "SELECT * FROM mesh_bottle_links WHERE bottle_id = ? AND role = ? ORDER BY node_id",
                                 arguments: [bottle.description, role.rawValue])
            } else {
                try Row.fetchAll(db, sql: "SELECT * FROM mesh_bottle_links WHERE bottle_id = ? ORDER BY role, node_id",
                                 arguments: [bottle.description])
            }
            return try rows.map(Self.link)
        }
    }

    /// Bottles hosted elsewhere whose chat a visitor here joined (role `host`), newest expiry last.
    public func remoteChats() throws -> [MeshBottleLink] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM mesh_bottle_links WHERE role = 'host' ORDER BY expires_at").map(Self.link)
        }
    }

    static func link(_ row: Row) throws -> MeshBottleLink {
        let id: String = row["bottle_id"]
        let role: String = row["role"]
        guard let bottle = BottleID(id), let parsed = MeshBottleLink.Role(rawValue: role) else {
            throw MeshStoreError.corruptRow(table: "mesh_bottle_links", column: "bottle_id", value: id)
        }
        return MeshBottleLink(bottle: bottle, node: try MeshColumn.node(row["node_id"], table: "mesh_bottle_links", column: "node_id"),
                              role: parsed, expiresAt: MeshColumn.date(row, "expires_at"), note: row["note"],
                              hostKey: (row["host_key"] as Data?).map { Array($0) })
    }

    // MARK: Watches of bottles hosted elsewhere

    /// `watcher` (a visitor here) watches `bottle`, hosted on another box; `false` when the
    /// bottle was erased here.
    @discardableResult
    public func watchRemote(_ bottle: BottleID, by watcher: TokenHash, at now: Date) throws -> Bool {
        try database.writer.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM mesh_erased WHERE bottle_id = ?", arguments: [bottle.description]) == true {
                return false
            }
            try db.execute(sql: "INSERT OR IGNORE INTO mesh_remote_watches (bottle_id, watcher, created_at) VALUES (?, ?, ?)",
                           arguments: [bottle.description, watcher.hex, StoredTime.milliseconds(now)])
            return true
        }
    }

    /// Visitors here watching `bottle` (hosted elsewhere).
    public func remoteWatchers(of bottle: BottleID) throws -> [TokenHash] {
        try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT watcher FROM mesh_remote_watches WHERE bottle_id = ? ORDER BY created_at",
                                arguments: [bottle.description]).compactMap { try? TokenHash(hex: $0) }
        }
    }

    // MARK: Remote chat replicas

    /// Stores a line of a chat hosted elsewhere; `false` when already stored or the bottle was erased here.
    @discardableResult
    public func appendRemoteLine(_ line: MeshRemoteLine) throws -> Bool {
        try database.writer.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM mesh_erased WHERE bottle_id = ?", arguments: [line.bottle.description]) == true {
                return false
            }
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO mesh_remote_lines (id, bottle_id, participant, label, text, sent_at, language)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [line.id, line.bottle.description, line.participant, line.label, line.text, StoredTime.milliseconds(line.sentAt),
                            line.language])
            return db.changesCount > 0
        }
    }

    /// The replica of a remote chat, oldest first.
    public func remoteLines(of bottle: BottleID) throws -> [MeshRemoteLine] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM mesh_remote_lines WHERE bottle_id = ? ORDER BY sent_at, id",
                             arguments: [bottle.description]).map { row in
                MeshRemoteLine(id: row["id"], bottle: bottle, participant: row["participant"], label: row["label"],
                               text: row["text"], sentAt: MeshColumn.date(row, "sent_at"), language: row["language"])
            }
        }
    }

    // MARK: Erasure

    /// Whether `bottle` was erased here (a tombstone exists).
    public func isErased(_ bottle: BottleID) throws -> Bool {
        try database.writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM mesh_erased WHERE bottle_id = ?", arguments: [bottle.description]) == true
        }
    }

    /// Deletes every mesh trace of `bottle` on this box (sent record, links, remote lines) and
    /// leaves a tombstone until `tombstoneUntil`; returns the rows deleted. `secure_delete`
    /// zeroes the freed bytes; the caller checkpoints the WAL.
    @discardableResult
    public func eraseTraces(of bottle: BottleID, tombstoneUntil: Date) throws -> Int {
        try database.writer.write { db in
            let id = bottle.description
            var deleted = 0
            for table in ["mesh_sent_bottles", "mesh_bottle_links", "mesh_remote_lines", "mesh_remote_watches"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE bottle_id = ?", arguments: [id])
                deleted += db.changesCount
            }
            try db.execute(sql: "INSERT OR REPLACE INTO mesh_erased (bottle_id, keep_until) VALUES (?, ?)",
                           arguments: [id, StoredTime.milliseconds(tombstoneUntil)])
            return deleted
        }
    }

    /// Bottles with mesh traces past their expiry (links, sent records, replicas whose host link expired).
    public func expiredTraces(now: Date) throws -> [BottleID] {
        try database.writer.read { db in
            let stamp = StoredTime.milliseconds(now)
            let ids = try String.fetchAll(db, sql: """
                SELECT bottle_id FROM mesh_bottle_links WHERE expires_at <= ?
                UNION SELECT bottle_id FROM mesh_sent_bottles WHERE expires_at <= ?
                UNION SELECT bottle_id FROM mesh_remote_lines
                    WHERE bottle_id NOT IN (SELECT bottle_id FROM mesh_bottle_links WHERE role = 'host')
                """, arguments: [stamp, stamp])
            return ids.compactMap(BottleID.init)
        }
    }

    /// Drops tombstones past their time; returns how many.
    @discardableResult
    public func pruneTombstones(now: Date) throws -> Int {
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM mesh_erased WHERE keep_until <= ?", arguments: [StoredTime.milliseconds(now)])
            return db.changesCount
        }
    }
}
