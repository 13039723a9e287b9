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

    public init(kind: ConditionKind, summary: String, outcome: ConditionOutcome, hint: String? = nil, changesAt: Date? = nil) {
        self.kind = kind
        self.summary = summary
        self.outcome = outcome
        self.hint = hint
        self.changesAt = changesAt
    }
}
