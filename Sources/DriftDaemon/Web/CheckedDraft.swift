import DriftCore
import Foundation

/// A drop or edit read from the API and checked, whose new password is not hashed yet.
///
/// Hashing is the one costly step of a drop (PBKDF2, up to a second on a Pi), so the
/// routes check everything a refusal can come from first, on ``draft`` (which holds a
/// stand-in of the same shape where the hash goes), and call ``hashed(on:)`` last: a
/// request that will be refused costs no hashing at all.
struct CheckedDraft: Sendable {
    /// The draft as it will be stored, with ``PasswordHashingPool/standIn`` in place of the
    /// new password's hash.
    var draft: BottleDraft
    /// The password typed for the draft's password condition (at `index`), when one was;
    /// `nil` when there is nothing to hash (none, or an edit that keeps the stored hash).
    var newPassword: (index: Int, password: String)?

    /// The draft to store, its new password hashed on `pool`'s threads.
    /// - Throws: ``PasswordHashingPool/Busy`` when the hashing queue is full.
    func hashed(on pool: PasswordHashingPool) async throws -> BottleDraft {
        guard let (index, password) = newPassword else { return draft }
        var draft = self.draft
        draft.conditions[index].condition = .password(try await pool.hash(password))
        return draft
    }
}
