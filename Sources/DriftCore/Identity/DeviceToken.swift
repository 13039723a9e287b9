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
