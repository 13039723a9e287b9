import DriftCore
import Foundation

/// What one ``BottleProcessor`` pass did (for logs and tests).
public struct ProcessReport: Sendable, Equatable {
    /// One applied lifecycle transition.
    public struct Transition: Sendable, Equatable {
        public var bottle: BottleID
        public var trigger: LifecycleTrigger
        public var at: Date

        public init(bottle: BottleID, trigger: LifecycleTrigger, at: Date) {
            self.bottle = bottle
            self.trigger = trigger
            self.at = at
        }
    }

    public var transitions: [Transition] = []
    /// Bottles erased in this pass.
    public var erased: [BottleID] = []
    /// Unopened bottles evaluated (0 when no pass ran: an input nobody reads).
    public var evaluated = 0

    public init() {}

    mutating func merge(_ other: ProcessReport) {
        transitions += other.transitions
        erased += other.erased
        evaluated += other.evaluated
    }
}
