import Foundation

/// A stored bottle password: PBKDF2-HMAC-SHA256 with a per-bottle random salt.
///
/// Holds everything needed to verify an attempt (the iteration count travels with
/// the hash, so raising the default later keeps old bottles working). Never holds
/// or logs the password; `description` shows only parameters.
public struct PasswordHash: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Always `"pbkdf2-sha256"`; stored so a later algorithm can sit beside it.
    public let algorithm: String
    /// PBKDF2 iteration count used for this hash.
    public let iterations: Int
    /// Per-bottle random salt (16 bytes).
    public let salt: [UInt8]
    /// Derived key (32 bytes).
    public let derivedKey: [UInt8]

    /// Rebuilds a stored hash.
    /// - Throws: ``DomainValidationError`` for an unknown algorithm or wrong sizes.
    public init(algorithm: String = "pbkdf2-sha256", iterations: Int, salt: [UInt8], derivedKey: [UInt8]) throws(DomainValidationError) {
        guard algorithm == "pbkdf2-sha256" else {
            throw DomainValidationError(field: "password.algorithm", value: algorithm, problem: "unsupported")
        }
        guard iterations >= 1, iterations <= 10_000_000 else {
            throw DomainValidationError(field: "password.iterations", value: "\(iterations)", problem: "must be 1…10,000,000")
        }
        guard salt.count >= 16, derivedKey.count == 32 else {
            throw DomainValidationError(field: "password", value: "", problem: "salt must be ≥ 16 bytes and key 32 bytes")
        }
        self.algorithm = algorithm
        self.iterations = iterations
        self.salt = salt
        self.derivedKey = derivedKey
    }

    public var description: String { "PasswordHash(\(algorithm), \(iterations) iterations)" }

    private enum CodingKeys: String, CodingKey { case algorithm, iterations, salt, derivedKey }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let salt = Base64URL.decode(try container.decode(String.self, forKey: .salt))
        let key = Base64URL.decode(try container.decode(String.self, forKey: .derivedKey))
        let algorithm = try container.decode(String.self, forKey: .algorithm)
        let iterations = try container.decode(Int.self, forKey: .iterations)
        do {
            try self.init(algorithm: algorithm, iterations: iterations, salt: salt ?? [], derivedKey: key ?? [])
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .salt, in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(algorithm, forKey: .algorithm)
        try container.encode(iterations, forKey: .iterations)
        try container.encode(Base64URL.encode(salt), forKey: .salt)
        try container.encode(Base64URL.encode(derivedKey), forKey: .derivedKey)
    }
}
