import Foundation

/// Something that happened to a bottle, broadcast on the ``EventBus`` to the API
/// (watchers' and creators' pages), the LEDs and the mesh.
///
/// The bus does not know audiences: subscribers decide who hears what (watchers
/// get ``Kind/becameOpenable``; creators get ``Kind/firstOpen``,
/// ``Kind/participantJoined`` and ``Kind/linesWhileAway`` after
/// ``CreatorNotificationLimiter``).
public struct DriftEvent: Sendable, Equatable, Codable {
    public enum Kind: Sendable, Equatable, Codable {
        /// Every ambient condition now holds (watchers).
        case becameOpenable
        /// It locked again before anyone opened it.
        case locked
        /// Opened for the first time, with the distance travelled from the origin.
        case firstOpen(distanceTravelledMeters: Double?)
        /// Someone entered the chat.
        case participantJoined(ParticipantID)
        /// A line was posted.
        case linePosted(MessageID, by: ParticipantID)
        /// Lines posted while the creator was away (aggregated, rate-limited).
        case linesWhileAway(count: Int)
        /// The survival countdown started.
        case dying(deadline: Date)
        /// Re-entry or Keep Alive stopped the countdown; `keeper` holds it now.
        case rescued(keeper: ParticipantID)
        /// The bottle is over and will be erased. The last event of a bottle.
        case expired(reason: LifecycleTrigger)
        /// A press of the box's presence button proved `visitor`'s presence for this
        /// bottle (their pending presence request); the proof counts for the presence
        /// condition's window from `at`. Addressed to that visitor's page only.
        case presenceProved(visitor: TokenHash)
    }

    public var bottle: BottleID
    public var at: Date
    public var kind: Kind

    public init(bottle: BottleID, at: Date, kind: Kind) {
        self.bottle = bottle
        self.at = at
        self.kind = kind
    }

    /// Whether this is the final ``Kind/expired`` event.
    public var isExpiry: Bool {
        if case .expired = kind { return true }
        return false
    }
}
