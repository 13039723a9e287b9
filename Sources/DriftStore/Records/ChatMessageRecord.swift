import DriftCore
import GRDB

/// One row of `chatMessage`.
struct ChatMessageRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "chatMessage"

    var id: String
    var bottleID: String
    var participant: String
    var sentAt: Int64
    var text: String
    var language: String
    var attachment: String?

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let bottleID = Column(CodingKeys.bottleID)
        static let sentAt = Column(CodingKeys.sentAt)
    }

    init(_ message: ChatMessage) throws {
        id = message.id.description
        bottleID = message.bottle.description
        participant = message.participant.hex
        sentAt = StoredTime.milliseconds(message.sentAt)
        text = message.text
        language = message.language.rawValue
        attachment = try message.attachment.map(StoredJSON.encode)
    }

    var message: ChatMessage {
        get throws {
            func corrupt(_ column: String, _ problem: String) -> BottleStoreError {
                .corruptRow(column: "chatMessage.\(column)", row: id, problem: problem)
            }
            guard let messageID = MessageID(id) else { throw corrupt("id", "not a UUID") }
            guard let bottle = BottleID(bottleID) else { throw corrupt("bottleID", "not a UUID") }
            let who: ParticipantID
            do throws(DomainValidationError) { who = try ParticipantID(hex: participant) } catch { throw corrupt("participant", error.description) }
            let tag: LanguageTag
            do throws(DomainValidationError) { tag = try LanguageTag(language) } catch { throw corrupt("language", error.description) }
            return ChatMessage(
                restoringID: messageID, bottle: bottle, participant: who, sentAt: StoredTime.date(sentAt), text: text,
                language: tag,
                attachment: try attachment.map { try StoredJSON.decode(ChatAttachment.self, from: $0, column: "chatMessage.attachment", row: id) })
        }
    }
}
