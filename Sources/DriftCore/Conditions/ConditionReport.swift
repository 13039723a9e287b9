import Foundation

/// The result of checking one condition.
public enum ConditionOutcome: Sendable, Equatable, Codable {
    /// The condition holds now.
    case satisfied
    /// The condition does not hold; `reason` says what is different, e.g. "it is 14:05".
    case notSatisfied(reason: String)
    /// The condition cannot be decided (input missing or stale); never counts as satisfied.
    case unknown(reason: String)

    public var isSatisfied: Bool { self == .satisfied }

    /// The reason, when not satisfied.
    public var reason: String? {
        switch self {
        case .satisfied: nil
        case .notSatisfied(let reason), .unknown(let reason): reason
        }
    }
}

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

/// The ambient evaluation of one bottle: one report per condition, and the verdict.
public struct BottleEvaluation: Sendable, Equatable, Codable {
    /// Reports in the bottle's condition order, then one-shot and expiry.
    public var reports: [ConditionReport]

    public init(reports: [ConditionReport]) {
        self.reports = reports
    }

    /// `true` when every ambient report is satisfied. Visitor proofs do not count here.
    public var isOpenable: Bool {
        reports.allSatisfy { !$0.kind.isAmbient || $0.outcome.isSatisfied }
    }

    /// Reasons of the ambient conditions that block opening.
    public var blockingReasons: [String] {
        reports.filter { $0.kind.isAmbient }.compactMap(\.outcome.reason)
    }

    /// The earliest time-driven change among all reports, for scheduling the next evaluation.
    public var nextChange: Date? {
        reports.compactMap(\.changesAt).min()
    }
}
