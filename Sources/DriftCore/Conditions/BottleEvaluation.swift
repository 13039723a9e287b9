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

    /// The earliest time-driven change among all reports, for scheduling the next evaluation.
    public var nextChange: Date? {
        reports.compactMap(\.changesAt).min()
    }
}
