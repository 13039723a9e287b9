import Foundation

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

    /// The earliest time-driven change among all reports, for watch timers.
    public var nextChange: Date? {
        reports.compactMap(\.changesAt).min()
    }

    /// The earliest instant at which evaluating again may give another verdict with no new
    /// input (``ConditionReport/changesAt`` and ``ConditionReport/recheckAt``): what the bottle
    /// processor sleeps until. `nil`: only an input (a reading, a fix, the clock) can change it.
    public var nextRecheck: Date? {
        reports.flatMap { [$0.changesAt, $0.recheckAt] }.compactMap { $0 }.min()
    }
}
