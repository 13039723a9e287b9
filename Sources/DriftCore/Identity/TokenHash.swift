import Crypto
import Foundation

/// SHA-256 of a ``DeviceToken``: identifies a visitor or creator in storage without revealing the token.
///
/// Encoded as 64 lowercase hex characters.
public struct TokenHash: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    init(digestOf tokenBytes: [UInt8]) {
        bytes = Array(SHA256.hash(data: tokenBytes))
    }

    /// Parses the stored hex form.
    /// - Throws: ``DomainValidationError`` unless it is 64 hex characters.
    public init(hex: String) throws(DomainValidationError) {
        guard hex.utf8.count == 64, let bytes = Hex.decode(hex) else {
            throw DomainValidationError(field: "tokenHash", value: hex, problem: "must be 64 hex characters")
        }
        self.bytes = bytes
    }

    /// 64 lowercase hex characters.
    public var hex: String { Hex.encode(bytes) }

    /// Short, non-reversible form for logs: the first 8 hex characters.
    public var description: String { String(hex.prefix(8)) }

    /// Constant-time comparison, for authorising creators.
    public func matches(_ other: TokenHash) -> Bool {
        ConstantTime.equal(bytes, other.bytes)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        do { self = try TokenHash(hex: raw) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
