import DriftCore
import Foundation
import GRDB

/// The bottles of this box in SQLite: create, find, list, change state, erase rows.
///
/// Every write is one transaction on the ``DriftDatabase`` (WAL, `synchronous=FULL`):
/// when a method returns, the change survives `kill -9` and power loss. State changes
/// go through DriftCore's ``Lifecycle`` table inside the transaction, so an invalid
/// transition throws ``BottleStoreError/lifecycle(_:_:)`` and changes nothing.
/// Instants are kept as whole milliseconds; methods return what was stored.
///
/// Chat lines, participants, survival state, watches, events and media rows live in
/// the extensions (`BottleStore+Chat.swift`, …). Media *files* are ``MediaStore``'s;
/// erasing a whole bottle (rows, files, WAL) is ``BottleEraser``'s.
public struct BottleStore: Sendable {
    /// How many share codes ``create(_:id:origin:creator:now:policy:preferences:makeShareCode:)``
    /// tries before giving up.
    public static let shareCodeAttempts = 10

    public let database: DriftDatabase

    public init(database: DriftDatabase) {
        self.database = database
    }

    // MARK: - Create

    /// Validates `draft` and stores a new locked bottle with a fresh share code.
    ///
    /// A share code that collides with a live bottle's code is replaced by the next
    /// one from `makeShareCode` (up to ``shareCodeAttempts``). Media referenced by the
    /// content must already be written (``MediaStore/write(_:to:)``); they are
    /// recorded in `mediaFile` in the same transaction.
    /// - Throws: `DomainValidationError` for an invalid draft,
    ///   ``BottleStoreError/shareCodeExhausted(attempts:)``, ``BottleStoreError/duplicateBottle(_:)``.
    public func create(
        _ draft: BottleDraft, id: BottleID, origin: BottleOrigin, creator: TokenHash, now: Date,
        policy: BottlePolicy = BottlePolicy(), preferences: NotificationPreferences = NotificationPreferences(),
        makeShareCode: () -> ShareCode = { ShareCode.random() }
    ) throws -> Bottle {
        let stamp = StoredTime.normalised(now)
        for _ in 0..<Self.shareCodeAttempts {
            let bottle = try Bottle.create(draft, id: id, shareCode: makeShareCode(), origin: origin,
                                           creator: creator, now: stamp, policy: policy)
            do {
                return try insert(bottle, preferences: preferences)
            } catch let error as DatabaseError where Self.isShareCodeCollision(error) {
                continue
            }
        }
        throw BottleStoreError.shareCodeExhausted(attempts: Self.shareCodeAttempts)
    }

    /// Stores an existing bottle as is (restored or relayed; no share-code retry).
    /// - Returns: the bottle as stored (instants truncated to milliseconds).
    /// - Throws: ``BottleStoreError/duplicateBottle(_:)``, a `DatabaseError` for a share-code
    ///   collision, ``BottleStoreError/foreignMedia(_:_:)`` for media outside its folder.
    @discardableResult
    public func insert(_ bottle: Bottle, preferences: NotificationPreferences = NotificationPreferences()) throws -> Bottle {
        for media in [bottle.content.image?.path, bottle.content.whisper?.path].compactMap({ $0 }) where !media.belongs(to: bottle.id) {
            throw BottleStoreError.foreignMedia(media, bottle.id)
        }
        let record = try BottleRecord(bottle)
        do {
            try database.writer.write { db in
                guard try !BottleRecord.exists(db, key: record.id) else { throw BottleStoreError.duplicateBottle(bottle.id) }
                try record.insert(db)
                for (position, entry) in bottle.conditions.enumerated() {
                    try ConditionRecord(bottle: bottle.id, position: position, entry: entry).insert(db)
                }
                try CreatorPreferencesRecord(bottle: bottle.id, preferences).insert(db)
                try Self.insertContentMedia(db, bottle: bottle)
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw BottleStoreError.duplicateBottle(bottle.id)
        }
        // Hand back exactly what a fetch would return (instants in whole milliseconds).
        let conditions = try bottle.conditions.enumerated().map {
            try ConditionRecord(bottle: bottle.id, position: $0.offset, entry: $0.element).entry
        }
        return try record.bottle(conditions: conditions)
    }

    static func isShareCodeCollision(_ error: DatabaseError) -> Bool {
        error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE && (error.message ?? "").contains("bottle.shareCode")
    }

    static func insertContentMedia(_ db: Database, bottle: Bottle) throws {
        let stamp = StoredTime.milliseconds(bottle.createdAt)
        if let image = bottle.content.image {
            try MediaFileRecord(path: image.path.rawValue, bottleID: bottle.id.description, messageID: nil,
                                role: StoredMediaFile.Role.image.rawValue, byteCount: image.byteCount, createdAt: stamp).insert(db)
        }
        if let whisper = bottle.content.whisper {
            try MediaFileRecord(path: whisper.path.rawValue, bottleID: bottle.id.description, messageID: nil,
                                role: StoredMediaFile.Role.whisper.rawValue, byteCount: whisper.byteCount, createdAt: stamp).insert(db)
        }
    }

    // MARK: - Find and list

    /// The bottle with `id`, if stored.
    public func bottle(_ id: BottleID) throws -> Bottle? {
        try database.writer.read { db in try Self.fetchBottle(db, id: id) }
    }

    /// The bottle reached by `code` (also a locked one), if any.
    public func bottle(shareCode code: ShareCode) throws -> Bottle? {
        try database.writer.read { db in
            let records = try BottleRecord.filter(BottleRecord.Columns.shareCode == code.rawValue).fetchAll(db)
            return try Self.assemble(db, records).first
        }
    }

    /// Whether a row for `id` exists.
    public func contains(_ id: BottleID) throws -> Bool {
        try database.writer.read { db in try BottleRecord.exists(db, key: id.description) }
    }

    /// Discovery: openable bottles, newest first.
    public func openable(limit: Int = 100) throws -> [Bottle] {
        try database.writer.read { db in
            let records = try BottleRecord.filter(BottleRecord.Columns.state == BottleState.openable.rawValue)
                .order(BottleRecord.Columns.createdAt.desc, BottleRecord.Columns.id.desc)
                .limit(max(0, limit)).fetchAll(db)
            return try Self.assemble(db, records)
        }
    }

    /// The bottles `creator` made that are not over yet, newest first.
    public func bottles(createdBy creator: TokenHash) throws -> [Bottle] {
        try database.writer.read { db in
            let records = try BottleRecord.filter(BottleRecord.Columns.creator == creator.hex)
                .filter(BottleRecord.Columns.state != BottleState.expired.rawValue)
                .order(BottleRecord.Columns.createdAt.desc, BottleRecord.Columns.id.desc).fetchAll(db)
            return try Self.assemble(db, records)
        }
    }

    /// Bottles in any of `states`, oldest first (the lifecycle processor's working set).
    ///
    /// Kept while the `bottle` and `bottleCondition` tables are unchanged
    /// (``DriftDatabase/generations``): every visitor's list asks for the live bottles, and
    /// decoding them (conditions are stored as JSON) was most of the read.
    public func bottles(in states: Set<BottleState>) throws -> [Bottle] {
        let generation = database.generations.generation(of: [BottleRecord.databaseTableName, ConditionRecord.databaseTableName])
        return try database.bottleReads.value(for: states, at: generation) {
            try database.writer.read { db in
                let records = try BottleRecord.filter(states.map(\.rawValue).contains(BottleRecord.Columns.state))
                    .order(BottleRecord.Columns.createdAt, BottleRecord.Columns.id).fetchAll(db)
                return try Self.assemble(db, records)
            }
        }
    }

    /// Raised by every commit that changed a bottle or its conditions (``DriftDatabase/generations``):
    /// what the processor compares to know whether bottles appeared or changed around it.
    public var bottlesGeneration: UInt64 {
        database.generations.generation(of: [BottleRecord.databaseTableName, ConditionRecord.databaseTableName])
    }

    /// How many bottles are in each state (states without bottles are left out): one
    /// `GROUP BY`, for status, metrics and telemetry, without loading any bottle.
    public func stateCounts() throws -> [BottleState: Int] {
        try database.writer.read { db in
            var counts: [BottleState: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) FROM bottle GROUP BY state") {
                guard let raw: String = row[0], let state = BottleState(rawValue: raw) else { continue }
                counts[state] = row[1]
            }
            return counts
        }
    }

    /// Ids of every stored bottle (to find media folders that lost their bottle).
    public func allIDs() throws -> Set<BottleID> {
        try database.writer.read { db in
            Set(try String.fetchAll(db, sql: "SELECT id FROM bottle").compactMap(BottleID.init))
        }
    }

    static func fetchBottle(_ db: Database, id: BottleID) throws -> Bottle? {
        guard let record = try BottleRecord.fetchOne(db, key: id.description) else { return nil }
        return try assemble(db, [record]).first
    }

    static func requireBottle(_ db: Database, id: BottleID) throws -> Bottle {
        guard let bottle = try fetchBottle(db, id: id) else { throw BottleStoreError.notFound(id) }
        return bottle
    }

    /// Joins rows with their conditions (one query for all of them).
    static func assemble(_ db: Database, _ records: [BottleRecord]) throws -> [Bottle] {
        guard !records.isEmpty else { return [] }
        let ids = records.map(\.id)
        let conditionRows = try ConditionRecord.filter(ids.contains(ConditionRecord.Columns.bottleID))
            .order(ConditionRecord.Columns.bottleID, ConditionRecord.Columns.position).fetchAll(db)
        var conditions: [String: [BottleCondition]] = [:]
        for row in conditionRows {
            conditions[row.bottleID, default: []].append(try row.entry)
        }
        return try records.map { try $0.bottle(conditions: conditions[$0.id] ?? []) }
    }

    // MARK: - Lifecycle

    /// Applies `trigger` to the stored bottle at `now`, validated by the ``Lifecycle`` table.
    ///
    /// For the first open use ``recordFirstOpen(_:by:hostPosition:box:label:at:survivalPolicy:)``,
    /// for retirement ``retire(_:by:at:)``.
    /// - Throws: ``BottleStoreError/notFound(_:)``, ``BottleStoreError/lifecycle(_:_:)``.
    @discardableResult
    public func apply(_ trigger: LifecycleTrigger, to id: BottleID, at now: Date) throws -> Bottle {
        try database.writer.write { db in
            var bottle = try Self.requireBottle(db, id: id)
            do throws(LifecycleError) { try bottle.apply(trigger, at: StoredTime.normalised(now)) } catch {
                throw BottleStoreError.lifecycle(id, error)
            }
            try BottleRecord(bottle).update(db)
            return bottle
        }
    }

    /// The first open: openable (or locked whose conditions were just found to hold) → active.
    ///
    /// Records when, by whom and how far the bottle travelled, makes the opener the
    /// first participant and starts the chat's ``ChatSurvival`` — all in one transaction.
    /// - Throws: ``BottleStoreError/notFound(_:)``, ``BottleStoreError/lifecycle(_:_:)``.
    public func recordFirstOpen(
        _ id: BottleID, by participant: ParticipantID, hostPosition: GeoPoint?, box: BoxID? = nil,
        label: ParticipantLabel? = nil, at now: Date, survivalPolicy: SurvivalPolicy = SurvivalPolicy()
    ) throws -> (bottle: Bottle, survival: ChatSurvival) {
        let stamp = StoredTime.normalised(now)
        return try database.writer.write { db in
            var bottle = try Self.requireBottle(db, id: id)
            do throws(LifecycleError) { try bottle.recordFirstOpen(by: participant, hostPosition: hostPosition, at: stamp) } catch {
                throw BottleStoreError.lifecycle(id, error)
            }
            try BottleRecord(bottle).update(db)
            let survival = ChatSurvival.firstOpen(by: participant, at: stamp, hardExpiresAt: bottle.expiresAt,
                                                  isOneShot: bottle.isOneShot, policy: survivalPolicy)
            try Self.saveSurvival(db, survival, of: id, at: stamp)
            try Self.upsertParticipant(db, participant, in: id, at: stamp, box: box, label: label)
            return (bottle, survival)
        }
    }

    /// The creator retires a bottle before its first open: → expired. Erase it next
    /// (``BottleEraser``).
    /// - Throws: ``BottleStoreError/lifecycle(_:_:)`` (not the creator, or already opened).
    @discardableResult
    public func retire(_ id: BottleID, by creator: TokenHash, at now: Date) throws -> Bottle {
        try database.writer.write { db in
            var bottle = try Self.requireBottle(db, id: id)
            do throws(LifecycleError) { try bottle.retire(by: creator, at: StoredTime.normalised(now)) } catch {
                throw BottleStoreError.lifecycle(id, error)
            }
            try BottleRecord(bottle).update(db)
            return bottle
        }
    }

    /// The creator edits a bottle before its first open (content, hint, conditions,
    /// expiry, one-shot). State is kept; the next evaluation re-decides it.
    /// - Returns: the stored bottle and the media paths the edit no longer uses
    ///   (the caller removes those files).
    /// - Throws: ``BottleStoreError/notFound(_:)``, ``BottleStoreError/lifecycle(_:_:)``
    ///   (not the creator / already opened), `DomainValidationError` for an invalid draft.
    public func edit(
        _ id: BottleID, with draft: BottleDraft, by creator: TokenHash, now: Date, policy: BottlePolicy = BottlePolicy()
    ) throws -> (bottle: Bottle, unusedMedia: [MediaPath]) {
        try database.writer.write { db in
            var bottle = try Self.requireBottle(db, id: id)
            let before = Set([bottle.content.image?.path, bottle.content.whisper?.path].compactMap { $0 })
            do throws(BottleEditError) { try bottle.edit(draft, by: creator, now: StoredTime.normalised(now), policy: policy) } catch {
                switch error {
                case .lifecycle(let lifecycle): throw BottleStoreError.lifecycle(id, lifecycle)
                case .invalid(let invalid): throw invalid
                }
            }
            try BottleRecord(bottle).update(db)
            try ConditionRecord.filter(ConditionRecord.Columns.bottleID == id.description).deleteAll(db)
            for (position, entry) in bottle.conditions.enumerated() {
                try ConditionRecord(bottle: id, position: position, entry: entry).insert(db)
            }
            try db.execute(sql: "DELETE FROM mediaFile WHERE bottleID = ? AND role IN ('image', 'whisper')",
                           arguments: [id.description])
            try Self.insertContentMedia(db, bottle: bottle)
            let after = Set([bottle.content.image?.path, bottle.content.whisper?.path].compactMap { $0 })
            let stored = try Self.requireBottle(db, id: id)
            return (stored, before.subtracting(after).sorted { $0.rawValue < $1.rawValue })
        }
    }

    // MARK: - Erase (rows)

    /// Deletes the bottle row and, by `ON DELETE CASCADE`, every row that belongs to it
    /// (conditions, preferences, chat lines, participants, survival, watches, pending
    /// events, media rows), in one transaction. `secure_delete` zeroes the freed bytes.
    ///
    /// Only part of an erase: ``BottleEraser/erase(_:)`` also removes the media folder
    /// and truncates the WAL.
    /// - Returns: whether a bottle row existed.
    @discardableResult
    public func deleteRows(of id: BottleID) throws -> Bool {
        try database.writer.write { db in
            try BottleRecord.deleteOne(db, key: id.description)
        }
    }

    /// Ids of bottles stored as expired (erase them; left over if the daemon stopped mid-erase).
    public func expiredIDs() throws -> [BottleID] {
        try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM bottle WHERE state = 'expired' ORDER BY id").compactMap(BottleID.init)
        }
    }
}
