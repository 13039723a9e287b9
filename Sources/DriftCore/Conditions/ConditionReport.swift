import Foundation

/// One condition as shown to a visitor or watcher: what it asks, how it stands, the hint.
public struct ConditionReport: Sendable, Equatable, Codable {
    public var kind: ConditionKind
    /// What the condition requires, e.g. "opens between 22:00 and 04:00 (Europe/Berlin)".
    /// Never reveals a password.
    public var summary: String
    public var outcome: ConditionOutcome
    /// The creator's hint, if any.
    public var hint: String?
    /// When this condition's outcome will next change by time alone, when known
    /// (window edges, delay end, expiry, next solar event); for watch timers.
    public var changesAt: Date?
    /// When the outcome may change with no new input, besides ``changesAt``: the reading or
    /// fix it rests on goes stale, a rain tip leaves its window, the gauge has listened long
    /// enough. Not a visitor-facing time ("changes at" would mislead for a reading going
    /// stale); the bottle processor sleeps until the earliest of both
    /// (``BottleEvaluation/nextRecheck``).
    public var recheckAt: Date?

    public init(kind: ConditionKind, summary: String, outcome: ConditionOutcome, hint: String? = nil, changesAt: Date? = nil,
                recheckAt: Date? = nil) {
        self.kind = kind
        self.summary = summary
        self.outcome = outcome
        self.hint = hint
        self.changesAt = changesAt
        self.recheckAt = recheckAt
    }
}
