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
