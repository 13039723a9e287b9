import Foundation

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
