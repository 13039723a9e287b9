import Foundation

/// Sliding-window limits on password attempts: per visitor per bottle, per bottle, per box.
///
/// Pure state: call ``admit(visitor:bottle:now:)`` before every verification and only
/// verify when it answers `.allowed`; the attempt is then counted whether it turns
/// out right or wrong. Refused attempts are not counted, so hammering does not
/// extend the lock-out. Defaults: 5 per visitor per bottle, 20 per bottle and 30
/// for the whole box, each per 5 minutes. The box-wide limit caps the CPU spent on
/// PBKDF2 when an attacker mints new device tokens. Memory stays bounded: only
/// admitted attempts are stored and they are dropped once out of the window.
public struct PasswordRateLimiter: Sendable, Equatable {
    /// One limit: at most `attempts` in any `window` seconds.
    public struct Limit: Sendable, Equatable, Codable {
        public var attempts: Int
        public var window: TimeInterval
        public init(attempts: Int, window: TimeInterval) {
            precondition(attempts > 0 && window > 0, "rate limit must be positive")
            self.attempts = attempts
            self.window = window
        }
    }

    /// The three limits.
    public struct Policy: Sendable, Equatable, Codable {
        public var perVisitorPerBottle: Limit
        public var perBottle: Limit
        public var perBox: Limit
        public init(perVisitorPerBottle: Limit = Limit(attempts: 5, window: 300),
                    perBottle: Limit = Limit(attempts: 20, window: 300),
                    perBox: Limit = Limit(attempts: 30, window: 300)) {
            self.perVisitorPerBottle = perVisitorPerBottle
            self.perBottle = perBottle
            self.perBox = perBox
        }
    }

    /// What the limiter answered.
    public enum Decision: Sendable, Equatable {
        /// Go ahead; the attempt is counted.
        case allowed
        /// Refused; `retryAfter` seconds until the limiting window frees a slot.
        case limited(scope: Scope, retryAfter: TimeInterval)
    }

    /// Which limit refused.
    public enum Scope: String, Sendable, Equatable, Codable {
        case visitor, bottle, box
    }

    private struct VisitorKey: Hashable, Sendable {
        var visitor: TokenHash
        var bottle: BottleID
    }

    public let policy: Policy
    private var byVisitor: [VisitorKey: [Date]] = [:]
    private var byBottle: [BottleID: [Date]] = [:]
    private var byBox: [Date] = []

    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// Asks to check one password attempt by `visitor` on `bottle` at `now`.
    public mutating func admit(visitor: TokenHash, bottle: BottleID, now: Date) -> Decision {
        let key = VisitorKey(visitor: visitor, bottle: bottle)
        let visitorAttempts = Self.recent(byVisitor[key] ?? [], within: policy.perVisitorPerBottle.window, now: now)
        let bottleAttempts = Self.recent(byBottle[bottle] ?? [], within: policy.perBottle.window, now: now)
        byBox = Self.recent(byBox, within: policy.perBox.window, now: now)
        byVisitor[key] = visitorAttempts.isEmpty ? nil : visitorAttempts
        byBottle[bottle] = bottleAttempts.isEmpty ? nil : bottleAttempts

        if let wait = Self.wait(visitorAttempts, policy.perVisitorPerBottle, now) {
            return .limited(scope: .visitor, retryAfter: wait)
        }
        if let wait = Self.wait(bottleAttempts, policy.perBottle, now) {
            return .limited(scope: .bottle, retryAfter: wait)
        }
        if let wait = Self.wait(byBox, policy.perBox, now) {
            return .limited(scope: .box, retryAfter: wait)
        }
        byVisitor[key, default: []].append(now)
        byBottle[bottle, default: []].append(now)
        byBox.append(now)
        return .allowed
    }

    /// Drops every attempt older than its window (call from housekeeping).
    public mutating func prune(now: Date) {
        byVisitor = byVisitor.compactMapValues { list in
            let kept = Self.recent(list, within: policy.perVisitorPerBottle.window, now: now)
            return kept.isEmpty ? nil : kept
        }
        byBottle = byBottle.compactMapValues { list in
            let kept = Self.recent(list, within: policy.perBottle.window, now: now)
            return kept.isEmpty ? nil : kept
        }
        byBox = Self.recent(byBox, within: policy.perBox.window, now: now)
    }

    /// Forgets everything about `bottle` (when it is erased).
    public mutating func forget(bottle: BottleID) {
        byBottle[bottle] = nil
        byVisitor = byVisitor.filter { $0.key.bottle != bottle }
    }

    /// Number of attempts currently remembered (for tests and metrics).
    public var trackedAttempts: Int { byBox.count }

    private static func recent(_ list: [Date], within window: TimeInterval, now: Date) -> [Date] {
        list.filter { now.timeIntervalSince($0) < window }
    }

    private static func wait(_ recent: [Date], _ limit: Limit, _ now: Date) -> TimeInterval? {
        guard recent.count >= limit.attempts else { return nil }
        // The slot frees when the oldest attempt that keeps us at the limit leaves the window.
        let blocking = recent.sorted()[recent.count - limit.attempts]
        return max(0, blocking.addingTimeInterval(limit.window).timeIntervalSince(now))
    }
}
