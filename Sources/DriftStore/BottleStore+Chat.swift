import DriftCore
import Foundation
import GRDB

extension BottleStore {
    /// Stores a chat line (already validated by `ChatMessage.make`) and its attachment's
    /// media row, in one transaction.
    ///
    /// - Throws: ``BottleStoreError/notFound(_:)``; ``BottleStoreError/chatClosed(_:state:)``
    ///   unless the bottle is `active` or `dying`; ``BottleStoreError/foreignMedia(_:_:)`` for an
    ///   attachment outside `media/bottles/{bottle}/chat/{message}/`.
    public func append(_ message: ChatMessage) throws {
        if let attachment = message.attachment,
           !attachment.path.rawValue.hasPrefix("media/bottles/\(message.bottle)/chat/\(message.id)/") {
            throw BottleStoreError.foreignMedia(attachment.path, message.bottle)
        }
        let record = try ChatMessageRecord(message)
        try database.writer.write { db in
            try Self.requireLiveChat(db, message.bottle)
            try record.insert(db)
            if let attachment = message.attachment {
                let byteCount: Int
                let path: MediaPath
                switch attachment {
                case .image(let image): (byteCount, path) = (image.byteCount, image.path)
                case .audio(let audio): (byteCount, path) = (audio.byteCount, audio.path)
                }
                try MediaFileRecord(path: path.rawValue, bottleID: record.bottleID, messageID: record.id,
                                    role: StoredMediaFile.Role.attachment.rawValue, byteCount: byteCount,
                                    createdAt: record.sentAt).insert(db)
            }
        }
    }

    /// One page of a bottle's chat: the newest `limit` lines (at most 50), or the lines
    /// just before `cursor`; oldest first, with the cursor of the page before.
    ///
    /// A keyset query on `(sentAt, id)`; the result equals `ChatTimeline.page` over all
    /// the bottle's lines.
    public func page(of bottle: BottleID, before cursor: ChatCursor? = nil, limit: Int = ChatTimeline.pageSize) throws -> ChatPage {
        let size = min(max(1, limit), ChatTimeline.pageSize)
        return try database.writer.read { db in
            var sql = "SELECT * FROM chatMessage WHERE bottleID = ?"
            var arguments: StatementArguments = [bottle.description]
            if let cursor {
                sql += " AND (sentAt, id) < (?, ?)"
                arguments += [cursor.sentAtMilliseconds, cursor.id.description]
            }
            sql += " ORDER BY sentAt DESC, id DESC LIMIT ?"
            arguments += [size + 1]
            let lines = try ChatMessageRecord.fetchAll(db, sql: sql, arguments: arguments).map { try $0.message }
            // `size + 1` newest lines before the cursor: the timeline's own paging decides
            // the page and whether there is an older one, so both agree by construction.
            return ChatTimeline.page(lines, before: cursor, limit: size)
        }
    }

    /// The line with `id`, if stored.
    public func message(_ id: MessageID) throws -> ChatMessage? {
        try database.writer.read { db in
            try ChatMessageRecord.fetchOne(db, key: id.description)?.message
        }
    }

    /// How many lines a bottle's chat holds.
    public func messageCount(in bottle: BottleID) throws -> Int {
        try database.writer.read { db in
            try ChatMessageRecord.filter(ChatMessageRecord.Columns.bottleID == bottle.description).fetchCount(db)
        }
    }

    // MARK: - Participants

    /// Records that `participant` is inside the chat at `now` (first entry or a later one).
    /// - Returns: `true` when this is their first time in this bottle.
    /// - Throws: ``BottleStoreError/notFound(_:)``, ``BottleStoreError/chatClosed(_:state:)``.
    @discardableResult
    public func recordParticipant(_ participant: ParticipantID, in bottle: BottleID, at now: Date,
                                  box: BoxID? = nil, label: ParticipantLabel? = nil) throws -> Bool {
        try database.writer.write { db in
            try Self.requireLiveChat(db, bottle)
            let known = try ParticipantRecord.exists(db, key: ["bottleID": bottle.description, "participant": participant.hex])
            try Self.upsertParticipant(db, participant, in: bottle, at: StoredTime.normalised(now), box: box, label: label)
            return !known
        }
    }

    /// ``participants(of:)`` for several bottles in one read (a list of bottles asks for all
    /// of them at once instead of one read each); bottles without participants are absent.
    public func participants(ofEach bottles: [BottleID]) throws -> [BottleID: [StoredParticipant]] {
        guard !bottles.isEmpty else { return [:] }
        // Kept while the participant table is unchanged (the list asks on every request).
        let generation = database.generations.generation(of: [ParticipantRecord.databaseTableName, BottleRecord.databaseTableName])
        return try database.participantReads.value(for: bottles, at: generation) {
            try database.writer.read { db in
                let records = try ParticipantRecord.filter(bottles.map(\.description).contains(ParticipantRecord.Columns.bottleID))
                    .order(ParticipantRecord.Columns.joinedAt, ParticipantRecord.Columns.participant)
                    .fetchAll(db)
                var result: [BottleID: [StoredParticipant]] = [:]
                for record in records {
                    guard let id = BottleID(record.bottleID) else { continue }
                    result[id, default: []].append(try record.participantInfo)
                }
                return result
            }
        }
    }

    /// ``messageCount(in:)`` for several bottles in one read; bottles without lines are absent.
    public func messageCounts(in bottles: [BottleID]) throws -> [BottleID: Int] {
        guard !bottles.isEmpty else { return [:] }
        return try database.writer.read { db in
            let ids = bottles.map(\.description)
            let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ",")
            let rows = try Row.fetchAll(db, sql: """
                SELECT bottleID, COUNT(*) AS lines FROM \(ChatMessageRecord.databaseTableName)
                WHERE bottleID IN (\(placeholders)) GROUP BY bottleID
                """, arguments: StatementArguments(ids))
            var result: [BottleID: Int] = [:]
            for row in rows {
                if let id = BottleID(row["bottleID"] as String) { result[id] = row["lines"] }
            }
            return result
        }
    }

    /// Everyone who has been inside a bottle's chat, in order of arrival.
    public func participants(of bottle: BottleID) throws -> [StoredParticipant] {
        try database.writer.read { db in
            try ParticipantRecord.filter(ParticipantRecord.Columns.bottleID == bottle.description)
                .order(ParticipantRecord.Columns.joinedAt, ParticipantRecord.Columns.participant)
                .fetchAll(db).map { try $0.participantInfo }
        }
    }

    static func upsertParticipant(_ db: Database, _ participant: ParticipantID, in bottle: BottleID, at now: Date,
                                  box: BoxID?, label: ParticipantLabel?) throws {
        let stamp = StoredTime.milliseconds(now)
        try db.execute(sql: """
            INSERT INTO participant (bottleID, participant, joinedAt, lastSeenAt, boxID, label) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (bottleID, participant) DO UPDATE SET
                lastSeenAt = max(lastSeenAt, excluded.lastSeenAt),
                boxID = coalesce(excluded.boxID, boxID),
                label = coalesce(excluded.label, label)
            """, arguments: [bottle.description, participant.hex, stamp, stamp, box?.rawValue, label?.rawValue])
    }

    /// Throws unless the bottle exists and its chat is live (`active` or `dying`).
    static func requireLiveChat(_ db: Database, _ bottle: BottleID) throws {
        guard let raw = try String.fetchOne(db, sql: "SELECT state FROM bottle WHERE id = ?", arguments: [bottle.description]) else {
            throw BottleStoreError.notFound(bottle)
        }
        let state = BottleState(rawValue: raw) ?? .expired
        guard state == .active || state == .dying else { throw BottleStoreError.chatClosed(bottle, state: state) }
    }

    // MARK: - Media rows

    /// The media files the database records for a bottle (content and attachments).
    public func mediaFiles(of bottle: BottleID) throws -> [StoredMediaFile] {
        try database.writer.read { db in
            try MediaFileRecord.filter(MediaFileRecord.Columns.bottleID == bottle.description)
                .order(MediaFileRecord.Columns.path).fetchAll(db).map { try $0.file }
        }
    }
}
