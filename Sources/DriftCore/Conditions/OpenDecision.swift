import Foundation

/// The answer to an ``OpenAttempt``.
public struct OpenDecision: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        /// Open it. `isFirstOpen` tells the caller to apply `recordFirstOpen`.
        case open(isFirstOpen: Bool)
        /// Refused; see ``OpenDecision/reasons``.
        case denied
    }

    public var verdict: Verdict
    /// Every checked condition, for the page.
    public var reports: [ConditionReport]
    /// Why it was refused (empty when opened).
    public var reasons: [String]
    /// Set when password attempts are rate-limited: seconds until the next one is admitted.
    public var retryAfter: TimeInterval?

    public var isOpen: Bool {
        if case .open = verdict { return true }
        return false
    }
}
