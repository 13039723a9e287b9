import Crypto
import Foundation

/// A visitor's secret: 32 random bytes kept by the browser, shown as base64url (43 characters).
///
/// The box never stores a token, only its ``TokenHash``. Creators manage their
/// bottles by presenting the same token.
public struct DeviceToken: Sendable, Equatable {
    /// Token length in bytes.
    public static let byteCount = 32
    /// The raw secret.
    public let bytes: [UInt8]

    /// A new random token.
    public static func generate(using generator: inout some RandomNumberGenerator) -> DeviceToken {
        DeviceToken(unchecked: (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// A new token from the system's secure random source.
    public static func generate() -> DeviceToken {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// Parses the base64url form a client sends.
    /// - Throws: ``DomainValidationError`` unless it decodes to exactly 32 bytes. The
    ///   error never echoes the token.
    public init(encoded: String) throws(DomainValidationError) {
        guard encoded.utf8.count == 43, let bytes = Base64URL.decode(encoded), bytes.count == DeviceToken.byteCount else {
            throw DomainValidationError(field: "deviceToken", value: "", problem: "must be 32 bytes in base64url (43 characters)")
        }
        self.bytes = bytes
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// The base64url form (no padding) handed to the browser.
    public var encoded: String { Base64URL.encode(bytes) }

    /// SHA-256 of the raw bytes: the only form the box keeps.
    public var hash: TokenHash { TokenHash(digestOf: bytes) }
}

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
