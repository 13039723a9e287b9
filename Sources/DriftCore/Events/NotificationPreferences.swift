import Foundation

/// Which creator notifications a creator wants (creator preferences).
public struct NotificationPreferences: Sendable, Equatable, Hashable, Codable {
    public var firstOpen: Bool
    public var participantJoined: Bool
    public var linesWhileAway: Bool

    public init(firstOpen: Bool = true, participantJoined: Bool = true, linesWhileAway: Bool = true) {
        self.firstOpen = firstOpen
        self.participantJoined = participantJoined
        self.linesWhileAway = linesWhileAway
    }
}
