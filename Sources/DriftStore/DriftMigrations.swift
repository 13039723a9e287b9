import GRDB

/// The schema's named migrations, applied in order. A migration is never edited once released;
/// changes come as new migrations.
enum DriftMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-box-state") { db in
            // Small facts about the box that must survive restarts (its generated id, first start).
            try db.create(table: "boxState") { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2-bottles", migrate: createBottleTables)
        migrator.registerMigration("v3-visitors") { db in
            // Device tokens handed out by the visitor API: only their SHA-256, never the token.
            try db.create(table: "visitor") { t in
                t.primaryKey("tokenHash", .text).check(sql: "length(tokenHash) = 64")
                t.column("createdAt", .integer).notNull()
            }
        }
        migrator.registerMigration("v4-mesh", migrate: createMeshTables)
        migrator.registerMigration("v5-mesh-bottles", migrate: createMeshBottleTables)
        migrator.registerMigration("v6-camps", migrate: createCampTables)
        migrator.registerMigration("v7-mqtt-outbox", migrate: MQTTOutbox.createTables)
        migrator.registerMigration("v8-remote-chat-access") { db in
            // On a visitor's box: the host's public key when its chat needs the bottle's
            // password (sealed to that key); NULL when anyone may join.
            try db.alter(table: "mesh_bottle_links") { t in t.add(column: "host_key", .blob) }
            // A remote chat line's language tag (BCP 47), so the page can offer translation.
            try db.alter(table: "mesh_remote_lines") { t in t.add(column: "language", .text).notNull().defaults(to: "und") }
        }
        migrator.registerMigration("v9-chat-reads") { db in
            // Where each visitor last looked at a chat (for unread counts): per bottle and
            // device token hash, erased with the bottle.
            try db.create(table: "chatRead") { t in
                t.column("bottleID", .text).notNull().references("bottle", onDelete: .cascade)
                t.column("reader", .text).notNull().check(sql: "length(reader) = 64")
                t.column("readUntil", .integer).notNull()
                t.primaryKey(["bottleID", "reader"])
            }
        }
        return migrator
    }

    /// The mesh's durable state (`docs/mesh-store.md`): the seen-set, held frames for
    /// store-and-forward, the outbox, and the TOFU keyring. Node ids and packet ids are
    /// unsigned 32-bit values in `INTEGER` columns; instants are whole milliseconds since 1970.
    static func createMeshTables(_ db: Database) throws {
        // Duplicate suppression: one row per packet heard, kept ≥ 24 h and until the frame's expiry.
        try db.execute(sql: """
            CREATE TABLE mesh_seen (
                origin INTEGER NOT NULL CHECK (origin BETWEEN 0 AND 4294967295),
                packet_id INTEGER NOT NULL CHECK (packet_id BETWEEN 0 AND 4294967295),
                first_heard INTEGER NOT NULL,
                keep_until INTEGER NOT NULL CHECK (keep_until >= first_heard),
                PRIMARY KEY (origin, packet_id)
            ) WITHOUT ROWID;
            CREATE INDEX mesh_seen_keep_until ON mesh_seen(keep_until);
            """)
        // Frames held for store-and-forward and reconciliation, bounded by row count and bytes.
        try db.execute(sql: """
            CREATE TABLE mesh_packets (
                origin INTEGER NOT NULL CHECK (origin BETWEEN 0 AND 4294967295),
                packet_id INTEGER NOT NULL CHECK (packet_id BETWEEN 0 AND 4294967295),
                kind INTEGER NOT NULL CHECK (kind BETWEEN 0 AND 15),
                destination INTEGER CHECK (destination BETWEEN 0 AND 4294967295),
                frame BLOB NOT NULL CHECK (length(frame) >= 1),
                priority INTEGER NOT NULL,
                received_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                from_me INTEGER NOT NULL CHECK (from_me IN (0, 1)),
                PRIMARY KEY (origin, packet_id)
            );
            CREATE INDEX mesh_packets_received ON mesh_packets(received_at);
            CREATE INDEX mesh_packets_eviction ON mesh_packets(from_me, expires_at);
            """)
        // Messages this box originates, stored before the first transmission (offline first).
        try db.execute(sql: """
            CREATE TABLE mesh_outbox (
                origin INTEGER NOT NULL CHECK (origin BETWEEN 0 AND 4294967295),
                first_packet_id INTEGER NOT NULL CHECK (first_packet_id BETWEEN 0 AND 4294967295),
                destination INTEGER CHECK (destination BETWEEN 0 AND 4294967295),
                fragment_count INTEGER NOT NULL CHECK (fragment_count BETWEEN 1 AND 255),
                priority INTEGER NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('queued', 'sent', 'delivered', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                next_attempt_at INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL CHECK (expires_at > created_at),
                last_error TEXT,
                PRIMARY KEY (origin, first_packet_id)
            );
            CREATE INDEX mesh_outbox_due ON mesh_outbox(state, next_attempt_at);
            CREATE INDEX mesh_outbox_expiry ON mesh_outbox(expires_at);
            CREATE TABLE mesh_outbox_frame (
                origin INTEGER NOT NULL,
                first_packet_id INTEGER NOT NULL,
                fragment_index INTEGER NOT NULL CHECK (fragment_index BETWEEN 0 AND 254),
                frame BLOB NOT NULL CHECK (length(frame) >= 1),
                PRIMARY KEY (origin, first_packet_id, fragment_index),
                FOREIGN KEY (origin, first_packet_id) REFERENCES mesh_outbox(origin, first_packet_id) ON DELETE CASCADE
            ) WITHOUT ROWID;
            """)
        // The TOFU keyring: the first public key heard for a node id wins.
        try db.execute(sql: """
            CREATE TABLE mesh_peers (
                node_id INTEGER PRIMARY KEY CHECK (node_id BETWEEN 0 AND 4294967294),
                public_key BLOB NOT NULL CHECK (length(public_key) = 32),
                first_seen INTEGER NOT NULL,
                last_seen INTEGER NOT NULL CHECK (last_seen >= first_seen),
                last_rssi REAL,
                last_snr REAL,
                hops INTEGER CHECK (hops BETWEEN 0 AND 255)
            );
            """)
        // The packet id counter's reserved high-water mark (one row).
        try db.execute(sql: """
            CREATE TABLE mesh_counter (
                name TEXT PRIMARY KEY NOT NULL,
                next_unreserved INTEGER NOT NULL CHECK (next_unreserved BETWEEN 1 AND 4294967296)
            );
            """)
    }

    /// What the product keeps about bottles that travel the mesh (`docs/mesh-bottles.md`):
    /// the box directory, bottles sent from here (no content), links between a bottle and the
    /// other boxes that hold part of it, watches of bottles hosted elsewhere, remote chat
    /// replicas and erase tombstones. None of it references `bottle`: most rows are about bottles hosted elsewhere.
    static func createMeshBottleTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE mesh_boxes (
                node_id INTEGER PRIMARY KEY NOT NULL CHECK (node_id BETWEEN 0 AND 4294967295),
                name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
                latitude REAL CHECK (latitude BETWEEN -90 AND 90),
                longitude REAL CHECK (longitude BETWEEN -180 AND 180),
                country TEXT CHECK (length(country) = 2),
                activity INTEGER NOT NULL CHECK (activity >= 0),
                last_seen INTEGER NOT NULL,
                CHECK ((latitude IS NULL) = (longitude IS NULL))
            );
            CREATE TABLE mesh_sent_bottles (
                bottle_id TEXT PRIMARY KEY NOT NULL CHECK (length(bottle_id) = 36),
                creator TEXT NOT NULL CHECK (length(creator) = 64),
                destination INTEGER NOT NULL CHECK (destination BETWEEN 0 AND 4294967295),
                destination_name TEXT NOT NULL,
                share_code TEXT NOT NULL CHECK (length(share_code) = 8),
                packet_id INTEGER NOT NULL CHECK (packet_id BETWEEN 0 AND 4294967295),
                sent_at INTEGER NOT NULL,
                delivered_at INTEGER,
                expires_at INTEGER NOT NULL
            );
            CREATE INDEX mesh_sent_bottles_creator ON mesh_sent_bottles(creator);
            CREATE INDEX mesh_sent_bottles_share_code ON mesh_sent_bottles(share_code);
            CREATE TABLE mesh_remote_watches (
                bottle_id TEXT NOT NULL CHECK (length(bottle_id) = 36),
                watcher TEXT NOT NULL CHECK (length(watcher) = 64),
                created_at INTEGER NOT NULL,
                PRIMARY KEY (bottle_id, watcher)
            ) WITHOUT ROWID;
            CREATE TABLE mesh_bottle_links (
                bottle_id TEXT NOT NULL CHECK (length(bottle_id) = 36),
                node_id INTEGER NOT NULL CHECK (node_id BETWEEN 0 AND 4294967295),
                role TEXT NOT NULL CHECK (role IN ('creator', 'host', 'participant', 'watcher')),
                expires_at INTEGER NOT NULL,
                note TEXT NOT NULL DEFAULT '' CHECK (length(CAST(note AS BLOB)) <= 255),
                PRIMARY KEY (bottle_id, node_id, role)
            ) WITHOUT ROWID;
            CREATE TABLE mesh_remote_lines (
                id TEXT PRIMARY KEY NOT NULL,
                bottle_id TEXT NOT NULL CHECK (length(bottle_id) = 36),
                participant TEXT NOT NULL,
                label TEXT NOT NULL,
                text TEXT NOT NULL CHECK (length(CAST(text AS BLOB)) <= 4000),
                sent_at INTEGER NOT NULL
            );
            CREATE INDEX mesh_remote_lines_bottle ON mesh_remote_lines(bottle_id, sent_at);
            CREATE TABLE mesh_erased (
                bottle_id TEXT PRIMARY KEY NOT NULL CHECK (length(bottle_id) = 36),
                keep_until INTEGER NOT NULL
            ) WITHOUT ROWID;
            """)
    }

    /// Bottles and everything that belongs to one. Every child row references `bottle`
    /// with `ON DELETE CASCADE`, so deleting the bottle row erases the whole bottle in
    /// one statement (see `docs/store.md`). Instants are whole milliseconds since 1970.
    static func createBottleTables(_ db: Database) throws {
        try db.create(table: "bottle") { t in
            t.primaryKey("id", .text).check(sql: "length(id) = 36")
            t.column("shareCode", .text).notNull().unique().check(sql: "length(shareCode) = 8")
            t.column("placement", .text).notNull()  // JSON Placement
            t.column("originBoxID", .text).notNull().check(sql: "length(originBoxID) BETWEEN 1 AND 64")
            t.column("originLatitude", .double).check(sql: "originLatitude BETWEEN -90 AND 90")
            t.column("originLongitude", .double).check(sql: "originLongitude BETWEEN -180 AND 180")
            t.column("originCountry", .text).check(sql: "length(originCountry) = 2")
            t.column("text", .text).notNull().check(sql: "length(CAST(text AS BLOB)) <= 8000")
            t.column("image", .text)    // JSON ImageRef (relative media path)
            t.column("whisper", .text)  // JSON AudioRef (relative media path)
            t.column("creator", .text).notNull().indexed().check(sql: "length(creator) = 64")
            t.column("hint", .text)
            t.column("expiresAt", .integer).notNull()
            t.column("isOneShot", .boolean).notNull().check(sql: "isOneShot IN (0, 1)")
            t.column("createdAt", .integer).notNull()
            t.column("firstOpenedAt", .integer)
            t.column("firstOpener", .text).check(sql: "length(firstOpener) = 32")
            t.column("distanceTravelledMeters", .double).check(sql: "distanceTravelledMeters >= 0")
            t.column("state", .text).notNull()
                .check(sql: "state IN ('locked', 'openable', 'active', 'dying', 'expired')")
            t.column("stateChangedAt", .integer).notNull()
            t.check(sql: "expiresAt > createdAt")
            t.check(sql: "(originLatitude IS NULL) = (originLongitude IS NULL)")
            // An opened bottle knows when and by whom.
            t.check(sql: "state NOT IN ('active', 'dying') OR (firstOpenedAt IS NOT NULL AND firstOpener IS NOT NULL)")
        }
        try db.create(index: "bottle_state", on: "bottle", columns: ["state", "createdAt"])

        try db.create(table: "bottleCondition") { t in
            t.column("bottleID", .text).notNull().references("bottle", onDelete: .cascade)
            t.column("position", .integer).notNull().check(sql: "position >= 0")
            t.column("kind", .text).notNull()
            t.column("definition", .text).notNull()  // JSON Condition; a password only as its salted PBKDF2 hash
            t.column("hint", .text)
            t.primaryKey(["bottleID", "position"])
        }

        try db.create(table: "creatorPreferences") { t in
            t.primaryKey("bottleID", .text).references("bottle", onDelete: .cascade)
            t.column("firstOpen", .boolean).notNull()
            t.column("participantJoined", .boolean).notNull()
            t.column("linesWhileAway", .boolean).notNull()
        }

        try db.create(table: "chatMessage") { t in
            t.primaryKey("id", .text).check(sql: "length(id) = 36")
            t.column("bottleID", .text).notNull().references("bottle", onDelete: .cascade)
            t.column("participant", .text).notNull().check(sql: "length(participant) = 32")
            t.column("sentAt", .integer).notNull()
            t.column("text", .text).notNull().check(sql: "length(CAST(text AS BLOB)) <= 4000")
            t.column("language", .text).notNull().check(sql: "length(language) BETWEEN 1 AND 64")
            t.column("attachment", .text)  // JSON ChatAttachment (relative media path)
            t.check(sql: "text <> '' OR attachment IS NOT NULL")
        }
        // Keyset paging: WHERE bottleID = ? AND (sentAt, id) < (?, ?) ORDER BY sentAt DESC, id DESC.
        try db.create(index: "chatMessage_order", on: "chatMessage", columns: ["bottleID", "sentAt", "id"])

        try db.create(table: "participant") { t in
            t.column("bottleID", .text).notNull().references("bottle", onDelete: .cascade)
            t.column("participant", .text).notNull().check(sql: "length(participant) = 32")
            t.column("joinedAt", .integer).notNull()
            t.column("lastSeenAt", .integer).notNull()
            t.column("boxID", .text)
            t.column("label", .text)
                .check(sql: "label IN ('local', 'nearby', 'sameCountry', 'sameContinent', 'global')")
            t.primaryKey(["bottleID", "participant"])
        }

        try db.create(table: "chatSurvival") { t in
            t.primaryKey("bottleID", .text).references("bottle", onDelete: .cascade)
            t.column("state", .text).notNull()  // JSON ChatSurvival: absolute deadlines, present set, keeper
            t.column("nextDeadline", .integer)
            t.column("updatedAt", .integer).notNull()
        }

        try db.create(table: "watch") { t in
            t.column("bottleID", .text).notNull().references("bottle", onDelete: .cascade)
            t.column("watcher", .text).notNull().indexed().check(sql: "length(watcher) = 64")
            t.column("createdAt", .integer).notNull()
            t.primaryKey(["bottleID", "watcher"])
        }

        try db.create(table: "pendingEvent") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("bottleID", .text).notNull().indexed().references("bottle", onDelete: .cascade)
            t.column("audience", .text).notNull().check(sql: "audience IN ('creator', 'watchers', 'participants')")
            t.column("at", .integer).notNull()
            t.column("event", .text).notNull()  // JSON DriftEvent
        }

        try db.create(table: "mediaFile") { t in
            t.primaryKey("path", .text)
            t.column("bottleID", .text).notNull().indexed().references("bottle", onDelete: .cascade)
            t.column("messageID", .text).indexed().references("chatMessage", onDelete: .cascade)
            t.column("role", .text).notNull().check(sql: "role IN ('image', 'whisper', 'attachment')")
            t.column("byteCount", .integer).notNull().check(sql: "byteCount >= 0")
            t.column("createdAt", .integer).notNull()
            // Relative paths inside the bottle's own folder only: never a URL, never absolute.
            t.check(sql: "substr(path, 1, 51) = 'media/bottles/' || bottleID || '/'")
            t.check(sql: "instr(path, '..') = 0 AND instr(path, '//') = 0 AND instr(path, ':') = 0")
            t.check(sql: "messageID IS NULL OR substr(path, 1, 93) = 'media/bottles/' || bottleID || '/chat/' || messageID || '/'")
        }
    }
}
