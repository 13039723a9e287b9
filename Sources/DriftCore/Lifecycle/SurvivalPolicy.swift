import Foundation

/// Chat survival durations (defaults from the product brief).
public struct SurvivalPolicy: Sendable, Equatable, Codable {
    /// How long an empty chat held by a keeper survives after the last presence or
    /// Keep Alive claim (default 1 h). Also the lifespan the first open gives.
    public var lifespan: TimeInterval
    /// The countdown after the last participant leaves with no keeper hold (default 30 s).
    public var countdown: TimeInterval

    public init(lifespan: TimeInterval = 3600, countdown: TimeInterval = 30) {
        precondition(lifespan > 0 && countdown > 0, "survival durations must be positive")
        self.lifespan = lifespan
        self.countdown = countdown
    }
}

/// The participant who last rescued or claimed the chat, and when.
///
/// The claim holds the chat alive with nobody inside until ``ChatSurvival/lifespanEndsAt``
/// (the lifespan after the last presence or claim). A new claim by anyone replaces it;
/// it ends when the hold runs out.
public struct KeeperClaim: Sendable, Equatable, Codable {
    public var participant: ParticipantID
    public var claimedAt: Date
    public init(participant: ParticipantID, claimedAt: Date) {
        self.participant = participant
        self.claimedAt = claimedAt
    }
}
