import DriftCore
import Foundation
import GRDB

extension BottleStore {
    // MARK: - Watches

    /// `watcher` watches `bottle` (idempotent: watching again keeps the first date).
    /// - Throws: ``BottleStoreError/notFound(_:)`` for an unknown or expired bottle.
    @discardableResult
    public func watch(_ bottle: BottleID, by watcher: TokenHash, at now: Date) throws -> Watch {
        try database.writer.write { db in
            let state = try String.fetchOne(db, sql: "SELECT state FROM bottle WHERE id = ?", arguments: [bottle.description])
            guard let state, state != BottleState.expired.rawValue else { throw BottleStoreError.notFound(bottle) }
            try db.execute(sql: "INSERT INTO watch (bottleID, watcher, createdAt) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                           arguments: [bottle.description, watcher.hex, StoredTime.milliseconds(now)])
            let record = try WatchRecord.fetchOne(db, key: ["bottleID": bottle.description, "watcher": watcher.hex])
            guard let record else { throw BottleStoreError.notFound(bottle) }
            return try record.watch
        }
    }

    /// Stops watching; nothing happens if there was no watch.
    public func unwatch(_ bottle: BottleID, by watcher: TokenHash) throws {
        try database.writer.write { db in
            _ = try WatchRecord.deleteOne(db, key: ["bottleID": bottle.description, "watcher": watcher.hex])
        }
    }

    /// Everyone watching `bottle`, oldest watch first.
    public func watches(of bottle: BottleID) throws -> [Watch] {
        try database.writer.read { db in
            try WatchRecord.filter(WatchRecord.Columns.bottleID == bottle.description)
                .order(WatchRecord.Columns.createdAt, WatchRecord.Columns.watcher).fetchAll(db).map { try $0.watch }
        }
    }

    /// Every bottle `watcher` watches, oldest watch first.
    public func watches(by watcher: TokenHash) throws -> [Watch] {
        try database.writer.read { db in
            try WatchRecord.filter(WatchRecord.Columns.watcher == watcher.hex)
                .order(WatchRecord.Columns.createdAt, WatchRecord.Columns.bottleID).fetchAll(db).map { try $0.watch }
        }
    }

    // MARK: - Pending events

    /// Keeps `event` for `audience` until acknowledged (e.g. a creator who is offline).
    /// - Returns: the event's id.
    /// - Throws: ``BottleStoreError/notFound(_:)`` once the bottle is gone (no event after expiry).
    @discardableResult
    public func enqueue(_ event: DriftEvent, for audience: EventAudience) throws -> Int64 {
        var record = PendingEventRecord(id: nil, bottleID: event.bottle.description, audience: audience.rawValue,
                                        at: StoredTime.milliseconds(event.at), event: try StoredJSON.encode(event))
        return try database.writer.write { db in
            guard try BottleRecord.exists(db, key: event.bottle.description) else { throw BottleStoreError.notFound(event.bottle) }
            try record.insert(db)
            return record.id ?? -1
        }
    }

    /// Pending events of `bottle` (for one audience, or all), oldest first.
    public func pendingEvents(of bottle: BottleID, for audience: EventAudience? = nil) throws -> [PendingEvent] {
        try database.writer.read { db in
            var request = PendingEventRecord.filter(PendingEventRecord.Columns.bottleID == bottle.description)
            if let audience { request = request.filter(PendingEventRecord.Columns.audience == audience.rawValue) }
            return try request.order(PendingEventRecord.Columns.id).fetchAll(db).map { try $0.pending }
        }
    }

    /// Acknowledges pending events of `bottle` with ids up to and including `id`.
    public func removePendingEvents(of bottle: BottleID, upTo id: Int64) throws {
        try database.writer.write { db in
            _ = try PendingEventRecord.filter(PendingEventRecord.Columns.bottleID == bottle.description)
                .filter(PendingEventRecord.Columns.id <= id).deleteAll(db)
        }
    }

    // MARK: - Creator preferences

    /// The creator's notification preferences for `bottle` (defaults if never set).
    /// - Throws: ``BottleStoreError/notFound(_:)``.
    public func preferences(of bottle: BottleID) throws -> NotificationPreferences {
        try database.writer.read { db in
            guard try BottleRecord.exists(db, key: bottle.description) else { throw BottleStoreError.notFound(bottle) }
            return try CreatorPreferencesRecord.fetchOne(db, key: bottle.description)?.preferences ?? NotificationPreferences()
        }
    }

    /// Changes the notification preferences; only the creator may.
    /// - Throws: ``BottleStoreError/notFound(_:)``, ``BottleStoreError/lifecycle(_:_:)`` with `.notCreator`.
    public func setPreferences(_ preferences: NotificationPreferences, for bottle: BottleID, by creator: TokenHash) throws {
        try database.writer.write { db in
            let stored = try Self.requireBottle(db, id: bottle)
            guard stored.isCreator(creator) else { throw BottleStoreError.lifecycle(bottle, .notCreator) }
            try CreatorPreferencesRecord(bottle: bottle, preferences).save(db)
        }
    }
}
