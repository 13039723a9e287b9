/// What derives bottle password hashes: ``PasswordHasher`` (PBKDF2) on a box.
///
/// Every derivation costs the same as one PBKDF2 run (0.1–1 s), so callers check
/// everything cheap first and run these off any shared executor. Tests put a counting or
/// gated hasher here to see each derivation at the lowest boundary.
public protocol PasswordHashing: Sendable {
    /// Iteration count of new hashes (the stored hash carries its own for verification).
    var iterations: Int { get }

    /// Hashes a new bottle password with a fresh random salt.
    /// - Throws: ``DomainValidationError`` for an empty or over-long password.
    func hash(_ password: String) throws(DomainValidationError) -> PasswordHash

    /// Whether `attempt` is the password behind `stored`.
    func verify(_ attempt: String, against stored: PasswordHash) -> Bool
}

extension PasswordHasher: PasswordHashing {}
