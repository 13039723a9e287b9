import Foundation

/// One line of a bottle's chat, stamped by the server.
///
/// Build with ``make(id:bottle:participant:sentAt:text:language:attachment:)``, which
/// validates: text trimmed, at most ``maximumTextLength`` characters, no control
/// characters except line breaks and tabs; empty or whitespace-only text only with
/// an attachment; a BCP 47 language tag; attachments inside
/// `media/bottles/{bottle}/chat/{message}/`. Lines order by ``orderKey``
/// (server time, then id).
public struct ChatMessage: Sendable, Equatable, Codable, Identifiable {
    /// Longest line, characters.
    public static let maximumTextLength = 1000
    /// Longest line, UTF-8 bytes.
    public static let maximumTextBytes = 4000

    public let id: MessageID
    public let bottle: BottleID
    public let participant: ParticipantID
    /// Server receive time, whole milliseconds.
    public let sentAt: Date
    public let text: String
    public let language: LanguageTag
    public let attachment: ChatAttachment?

    /// Validates and builds a line.
    /// - Throws: ``DomainValidationError`` naming the first problem.
    public static func make(
        id: MessageID, bottle: BottleID, participant: ParticipantID, sentAt: Date,
        text: String, language: String, attachment: ChatAttachment? = nil
    ) throws(DomainValidationError) -> ChatMessage {
        let trimmed = text.trimmingSpaces()
        try TextRules.check(trimmed, field: "message.text", maximumLength: maximumTextLength,
                            maximumBytes: maximumTextBytes, allowLineBreaks: true)
        guard !trimmed.isEmpty || attachment != nil else {
            throw DomainValidationError(field: "message.text", value: "", problem: "is empty")
        }
        let tag = try LanguageTag(language)
        if let attachment {
            let folder = "media/bottles/\(bottle)/chat/\(id)/"
            guard attachment.path.rawValue.hasPrefix(folder) else {
                throw DomainValidationError(field: "message.attachment.path", value: attachment.path.rawValue,
                                            problem: "must lie in \(folder)")
            }
            switch attachment {
            case .image(let image): try image.validate()
            case .audio(let audio): try audio.validate(allowed: AudioRef.chatDuration, field: "message.audio")
            }
        }
        return ChatMessage(id: id, bottle: bottle, participant: participant, sentAt: sentAt.wholeMilliseconds,
                           text: trimmed, language: tag, attachment: attachment)
    }

    /// Rebuilds a stored line without validation (for the store).
    public init(restoringID id: MessageID, bottle: BottleID, participant: ParticipantID, sentAt: Date,
                text: String, language: LanguageTag, attachment: ChatAttachment?) {
        self.init(id: id, bottle: bottle, participant: participant, sentAt: sentAt.wholeMilliseconds,
                  text: text, language: language, attachment: attachment)
    }

    private init(id: MessageID, bottle: BottleID, participant: ParticipantID, sentAt: Date,
                 text: String, language: LanguageTag, attachment: ChatAttachment?) {
        self.id = id
        self.bottle = bottle
        self.participant = participant
        self.sentAt = sentAt
        self.text = text
        self.language = language
        self.attachment = attachment
    }

    /// The ordering key: server time, then id.
    public var orderKey: ChatCursor { ChatCursor(sentAt: sentAt, id: id) }
}
