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
