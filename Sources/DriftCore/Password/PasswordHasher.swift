import Crypto
import _CryptoExtras
import Foundation

/// Hashes and verifies bottle passwords with PBKDF2-HMAC-SHA256 (swift-crypto).
///
/// Passwords are Unicode-normalised (NFC) before hashing, so "é" typed on two
/// keyboards matches. Verification derives with the stored hash's own iteration
/// count and compares in constant time. Cost is linear in ``iterations``: the
/// production default (210,000, the floor swift-crypto enforces for its checked
/// API) took 0.14 s per attempt on one x86-64 core (debug build) and is estimated
/// at 0.5–1 s on a Pi Zero 2 W (see `docs/conditions.md`); tests pass a low count.
/// Attempts must go through ``PasswordRateLimiter`` first.
public struct PasswordHasher: Sendable {
    /// Production iteration count.
    public static let defaultIterations = 210_000
    /// Longest accepted password, in characters.
    public static let maximumLength = 128
    /// Salt length in bytes.
    public static let saltLength = 16

    /// Iteration count for new hashes.
    public let iterations: Int

    /// - Parameter iterations: PBKDF2 iterations for new hashes (1…10,000,000).
    public init(iterations: Int = PasswordHasher.defaultIterations) {
        precondition((1...10_000_000).contains(iterations), "PBKDF2 iterations out of range")
        self.iterations = iterations
    }

    /// Hashes a new bottle password with a fresh random salt.
    /// - Throws: ``DomainValidationError`` for an empty or over-long password
    ///   (the password itself is never in the error).
    public func hash(_ password: String, using generator: inout some RandomNumberGenerator) throws(DomainValidationError) -> PasswordHash {
        let normalised = try Self.normalise(password)
        let salt = (0..<Self.saltLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let key = Self.derive(normalised, salt: salt, iterations: iterations)
        return try PasswordHash(iterations: iterations, salt: salt, derivedKey: key)
    }

    /// Hashes with the system's secure random source.
    public func hash(_ password: String) throws(DomainValidationError) -> PasswordHash {
        var generator = SystemRandomNumberGenerator()
        return try hash(password, using: &generator)
    }

    /// Whether `attempt` is the password behind `stored`. Invalid attempts (empty,
    /// too long) are simply wrong.
    public func verify(_ attempt: String, against stored: PasswordHash) -> Bool {
        guard let normalised = try? Self.normalise(attempt) else { return false }
        let key = Self.derive(normalised, salt: stored.salt, iterations: stored.iterations)
        return ConstantTime.equal(key, stored.derivedKey)
    }

    /// Checks that `password` may be a bottle password (1…``maximumLength`` characters once
    /// normalised) without deriving anything: the cheap part of ``hash(_:using:)``.
    /// - Throws: the same ``DomainValidationError`` as ``hash(_:using:)``.
    public static func check(_ password: String) throws(DomainValidationError) {
        _ = try normalise(password)
    }

    static func normalise(_ password: String) throws(DomainValidationError) -> [UInt8] {
        let nfc = password.precomposedStringWithCanonicalMapping
        guard !nfc.isEmpty, nfc.count <= maximumLength else {
            throw DomainValidationError(field: "password", value: "",
                                        problem: "must be 1–\(maximumLength) characters")
        }
        return Array(nfc.utf8)
    }

    static func derive(_ password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        // BoringSSL's PBKDF2 fails only for invalid parameters (zero output length or
        // rounds), which the initialisers rule out; an empty key never verifies.
        guard let key = try? KDF.Insecure.PBKDF2.deriveKey(
            from: password, salt: salt, using: .sha256, outputByteCount: 32,
            unsafeUncheckedRounds: iterations) else { return [] }
        return key.withUnsafeBytes { Array($0) }
    }
}
