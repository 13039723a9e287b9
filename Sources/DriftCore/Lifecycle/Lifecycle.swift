/// The bottle lifecycle as an explicit transition table.
///
/// ```
/// locked   --conditionsMet-----> openable
/// openable --conditionsLost----> locked
/// openable --firstOpen---------> active
/// active   --countdownStarted--> dying
/// dying    --reentered---------> active
/// dying    --keepAliveClaimed--> active
/// dying    --countdownEnded----> expired
/// active   --hardExpiry--------> expired
/// dying    --hardExpiry--------> expired
/// active   --oneShotConsumed---> expired
/// locked   --hardExpiry--------> expired
/// openable --hardExpiry--------> expired
/// locked   --retired-----------> expired
/// openable --retired-----------> expired
/// ```
/// Every other (state, trigger) pair is invalid and throws ``LifecycleError``;
/// nothing is applied silently. `docs/lifecycle.md` explains each row.
public enum Lifecycle {
    /// One row of the table.
    public struct Transition: Sendable, Equatable, Hashable {
        public var from: BottleState
        public var trigger: LifecycleTrigger
        public var to: BottleState
    }

    /// The whole table, in documentation order.
    public static let table: [Transition] = [
        Transition(from: .locked, trigger: .conditionsMet, to: .openable),
        Transition(from: .openable, trigger: .conditionsLost, to: .locked),
        Transition(from: .openable, trigger: .firstOpen, to: .active),
        Transition(from: .active, trigger: .countdownStarted, to: .dying),
        Transition(from: .dying, trigger: .reentered, to: .active),
        Transition(from: .dying, trigger: .keepAliveClaimed, to: .active),
        Transition(from: .dying, trigger: .countdownEnded, to: .expired),
        Transition(from: .active, trigger: .hardExpiry, to: .expired),
        Transition(from: .dying, trigger: .hardExpiry, to: .expired),
        Transition(from: .active, trigger: .oneShotConsumed, to: .expired),
        Transition(from: .locked, trigger: .hardExpiry, to: .expired),
        Transition(from: .openable, trigger: .hardExpiry, to: .expired),
        Transition(from: .locked, trigger: .retired, to: .expired),
        Transition(from: .openable, trigger: .retired, to: .expired),
    ]

    private static let lookup: [BottleState: [LifecycleTrigger: BottleState]] = {
        var map: [BottleState: [LifecycleTrigger: BottleState]] = [:]
        for row in table { map[row.from, default: [:]][row.trigger] = row.to }
        return map
    }()

    /// The state after `trigger` in `state`.
    /// - Throws: ``LifecycleError/invalidTransition(from:trigger:)`` when the table has no such row.
    public static func transition(from state: BottleState, on trigger: LifecycleTrigger) throws(LifecycleError) -> BottleState {
        guard let next = lookup[state]?[trigger] else {
            throw .invalidTransition(from: state, trigger: trigger)
        }
        return next
    }

    /// The trigger an ambient evaluation calls for on a bottle not yet opened, if any.
    ///
    /// - `locked` and every ambient condition satisfied → `conditionsMet`;
    /// - `openable` and some ambient condition not satisfied or unknown → `conditionsLost`;
    /// - `locked`/`openable` past `expiresAt` (and the clock trusted, i.e. the expiry
    ///   report is `notSatisfied`) → `hardExpiry`, before anything else.
    ///
    /// Opened bottles (`active`, `dying`) are driven by ``ChatSurvival``; expired ones by nothing.
    public static func ambientTrigger(for bottle: Bottle, evaluation: BottleEvaluation) -> LifecycleTrigger? {
        guard bottle.state == .locked || bottle.state == .openable else { return nil }
        if let expiry = evaluation.reports.first(where: { $0.kind == .expiry }), case .notSatisfied = expiry.outcome {
            return .hardExpiry
        }
        switch (bottle.state, evaluation.isOpenable) {
        case (.locked, true): return .conditionsMet
        case (.openable, false): return .conditionsLost
        default: return nil
        }
    }

    /// Whether the table has a row for (`state`, `trigger`).
    public static func allows(_ trigger: LifecycleTrigger, from state: BottleState) -> Bool {
        lookup[state]?[trigger] != nil
    }
}
