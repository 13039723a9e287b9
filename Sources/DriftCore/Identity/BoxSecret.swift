/// The box's private key for deriving participant identifiers (HMAC key, 32 bytes).
///
/// Made once on first boot and kept on the data partition by the daemon; without it,
/// participant ids cannot be linked to device tokens. Its `description` never shows it.
public struct BoxSecret: Sendable, CustomStringConvertible {
    /// Secret length in bytes.
    public static let byteCount = 32
    let bytes: [UInt8]

    /// Wraps stored key material.
    /// - Throws: ``DomainValidationError`` unless exactly 32 bytes.
    public init(bytes: [UInt8]) throws(DomainValidationError) {
        guard bytes.count == BoxSecret.byteCount else {
            throw DomainValidationError(field: "boxSecret", value: "", problem: "must be 32 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// A new random secret.
    public static func generate(using generator: inout some RandomNumberGenerator) -> BoxSecret {
        BoxSecret(unchecked: (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// A new secret from the system's secure random source.
    public static func generate() -> BoxSecret {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// The key material, for the daemon to persist.
    public var rawBytes: [UInt8] { bytes }

    public var description: String { "BoxSecret(redacted)" }
}
