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
        return migrator
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
