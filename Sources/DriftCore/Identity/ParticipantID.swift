import Crypto
import Foundation

/// A visitor's pseudonym inside one bottle: HMAC-SHA256(box secret, token hash ‖ bottle id),
/// truncated to 16 bytes and shown as 32 hex characters.
///
/// The same token gives the same id (and so the same ``Avatar``) in one bottle, and
/// unrelated ids in two bottles: without the box secret nobody can link them, and
/// even with it the link needs the token hash.
public struct ParticipantID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// Truncated MAC length in bytes.
    public static let byteCount = 16
    /// The 16 identifier bytes.
    public let bytes: [UInt8]

    /// Derives the pseudonym of `visitor` in `bottle`.
    public init(visitor: TokenHash, bottle: BottleID, secret: BoxSecret) {
        let key = SymmetricKey(data: secret.bytes)
        var message = visitor.bytes
        message.append(contentsOf: bottle.bytes)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: key)
        bytes = Array(Array(mac).prefix(ParticipantID.byteCount))
    }

    /// Parses the 32-character hex form.
    /// - Throws: ``DomainValidationError`` otherwise.
    public init(hex: String) throws(DomainValidationError) {
        guard hex.utf8.count == 2 * ParticipantID.byteCount, let bytes = Hex.decode(hex) else {
            throw DomainValidationError(field: "participantID", value: hex, problem: "must be 32 hex characters")
        }
        self.bytes = bytes
    }

    /// 32 lowercase hex characters.
    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }

    /// The generated avatar and colour for this participant.
    public var avatar: Avatar { Avatar(participant: self) }

    public static func < (lhs: ParticipantID, rhs: ParticipantID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        do { self = try ParticipantID(hex: raw) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
