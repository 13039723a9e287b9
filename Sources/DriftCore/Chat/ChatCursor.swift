import Foundation

/// A position in a chat's order (server time, then message id); also the opaque paging cursor.
///
/// Clients see only ``encoded`` (base64url of 8 bytes of milliseconds and the 16
/// id bytes); the store can use ``sentAtMilliseconds`` and ``id`` in a keyset query
/// `WHERE (sentAt, id) < (?, ?) ORDER BY sentAt DESC, id DESC LIMIT 50`.
public struct ChatCursor: Sendable, Hashable, Comparable, Codable {
    public let sentAtMilliseconds: Int64
    public let id: MessageID

    public init(sentAt: Date, id: MessageID) {
        sentAtMilliseconds = sentAt.millisecondsSince1970
        self.id = id
    }

    /// Decodes a client's cursor.
    /// - Throws: ``DomainValidationError`` for anything not produced by ``encoded``.
    public init(encoded: String) throws(DomainValidationError) {
        guard encoded.utf8.count <= 40, let bytes = Base64URL.decode(encoded), bytes.count == 24 else {
            throw DomainValidationError(field: "cursor", value: encoded, problem: "is not a chat cursor")
        }
        var millis: Int64 = 0
        for byte in bytes[0..<8] { millis = millis << 8 | Int64(byte) }
        let b = Array(bytes[8..<24])
        sentAtMilliseconds = millis
        id = MessageID(uuid: UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                         b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
    }

    /// The opaque form handed to clients (32 characters).
    public var encoded: String {
        var bytes: [UInt8] = (0..<8).map { UInt8(truncatingIfNeeded: sentAtMilliseconds >> (8 * (7 - $0))) }
        bytes += id.bytes
        return Base64URL.encode(bytes)
    }

    public var sentAt: Date { Date(timeIntervalSince1970: Double(sentAtMilliseconds) / 1000) }

    public static func < (lhs: ChatCursor, rhs: ChatCursor) -> Bool {
        (lhs.sentAtMilliseconds, lhs.id) < (rhs.sentAtMilliseconds, rhs.id)
    }
}
