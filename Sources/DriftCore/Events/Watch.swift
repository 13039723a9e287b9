import Foundation

/// A visitor watching a bottle (usually a locked one reached by share code).
///
/// Watchers see the conditions, their state, hints and timers (``BottleEvaluation``,
/// whose ``ConditionReport/changesAt`` and ``BottleEvaluation/nextChange`` give the
/// timers) and get a ``DriftEvent/Kind/becameOpenable`` event. Watches are erased with
/// the bottle.
public struct Watch: Sendable, Equatable, Hashable, Codable {
    public var bottle: BottleID
    public var watcher: TokenHash
    public var createdAt: Date

    public init(bottle: BottleID, watcher: TokenHash, createdAt: Date) {
        self.bottle = bottle
        self.watcher = watcher
        self.createdAt = createdAt
    }
}

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
