import Foundation

/// What a visitor brings when opening a bottle.
public struct OpenAttempt: Sendable {
    /// Hash of the visitor's device token.
    public var visitor: TokenHash
    /// The visitor's pseudonym in this bottle (``ParticipantID``).
    public var participant: ParticipantID
    /// The password typed, if any. Never logged.
    public var password: String?
    /// The visitor's presence proof from ``PresenceBinder``, if any.
    public var presence: PresenceProof?
    /// Where the attempt came from: the visitor's network address, or `node-xxxxxxxx` for a
    /// visitor at another box of the mesh; `nil` when unknown. Password guesses are limited
    /// per address too (``PasswordRateLimiter``).
    public var client: String?

    public init(visitor: TokenHash, participant: ParticipantID, password: String? = nil, presence: PresenceProof? = nil,
                client: String? = nil) {
        self.visitor = visitor
        self.participant = participant
        self.password = password
        self.presence = presence
        self.client = client
    }
}
