/// When to retry a missing or failing sensor: exponential back-off, reset by
/// a success. Pure; times are any monotonic `Duration`.
///
/// After the first failure the next attempt is ``initialDelay`` later, then
/// the delay doubles up to ``maximumDelay``: with the defaults 5 s, 10 s, 20 s,
/// … 5 min, 5 min. A sensor that stays unplugged costs one bus transfer every
/// 5 minutes; one plugged back in is found within 5 minutes.
public struct RetryBackoff: Sendable, Equatable {
    public let initialDelay: Duration
    public let maximumDelay: Duration

    /// Failures since the last success.
    public private(set) var failures = 0
    /// When the next attempt is due; `nil` while healthy (attempt on schedule).
    public private(set) var nextAttempt: Duration?

    /// - Parameters: both positive, `maximumDelay` ≥ `initialDelay`.
    public init(initialDelay: Duration = .seconds(5), maximumDelay: Duration = .seconds(300)) {
        precondition(initialDelay > .zero && maximumDelay >= initialDelay, "back-off delays must be positive and ordered")
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The delay after the current number of failures (zero while healthy).
    public var currentDelay: Duration {
        guard failures > 0 else { return .zero }
        var delay = initialDelay
        for _ in 1..<min(failures, 64) {
            delay = delay * 2
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }

    /// Whether an attempt may be made at `now`.
    public func mayAttempt(now: Duration) -> Bool {
        nextAttempt.map { now >= $0 } ?? true
    }

    /// Records a failed attempt at `now`; returns when to try again.
    @discardableResult
    public mutating func recordFailure(at now: Duration) -> Duration {
        failures += 1
        let next = now + currentDelay
        nextAttempt = next
        return next
    }

    /// Records a successful attempt: back to the normal schedule.
    public mutating func recordSuccess() {
        failures = 0
        nextAttempt = nil
    }
}
