/// When an unacknowledged outbox message is sent again: 30 s × 1.5ⁿ, at most 10 attempts.
///
/// `n` counts the transmissions made before the one just made (0 for the first), so the
/// wait after the first transmission is 30 s, after the second 45 s, then 67.5 s, … The
/// wait after the last (10th) transmission is the final grace period for its
/// acknowledgement; when it passes without one the message is *failed* (and kept until
/// its own expiry). The delays are exact (`Duration` arithmetic, no floating point);
/// jitter, if wanted, is a separate step (``jittered(_:fraction:using:)``) so the schedule
/// itself stays testable.
public struct RetrySchedule: Hashable, Sendable {
    /// The wait after the first transmission.
    public var initialDelay: Duration
    /// Growth per attempt as an exact fraction (3/2 = 1.5).
    public var growthNumerator: Int
    public var growthDenominator: Int
    /// Transmissions before the message is given up.
    public var maxAttempts: Int

    /// Creates a schedule. Growth is `numerator / denominator` (both ≥ 1); `maxAttempts` ≥ 1.
    public init(initialDelay: Duration = .seconds(30), growthNumerator: Int = 3, growthDenominator: Int = 2, maxAttempts: Int = 10) {
        precondition(growthNumerator >= 1 && growthDenominator >= 1, "growth must be a positive fraction")
        precondition(maxAttempts >= 1, "at least one attempt")
        self.initialDelay = initialDelay
        self.growthNumerator = growthNumerator
        self.growthDenominator = growthDenominator
        self.maxAttempts = maxAttempts
    }

    /// The schedule: 30 s × 1.5ⁿ, 10 attempts.
    public static let standard = RetrySchedule()

    /// The wait after transmission number `attempt` (0-based: 0 is the first send), or `nil`
    /// when `attempt` is outside `0..<maxAttempts`.
    public func delay(afterAttempt attempt: Int) -> Duration? {
        guard attempt >= 0, attempt < maxAttempts else { return nil }
        var delay = initialDelay
        for _ in 0..<attempt {
            delay = delay * growthNumerator / growthDenominator
        }
        return delay
    }

    /// All `maxAttempts` waits in order.
    public var delays: [Duration] {
        (0..<maxAttempts).compactMap { delay(afterAttempt: $0) }
    }

    /// From the first transmission until the message is failed (the sum of ``delays``).
    public var totalDuration: Duration {
        delays.reduce(.zero, +)
    }

    /// Whether a message with `attempts` transmissions may not be sent again.
    public func isExhausted(attempts: Int) -> Bool {
        attempts >= maxAttempts
    }

    /// `delay` plus a uniformly random extra of up to `fraction` of it (0…1), from `generator`.
    ///
    /// Spreads retries of boxes that lost the same packet so they do not collide again.
    public func jittered(_ delay: Duration, fraction: Double = 0.1, using generator: inout some RandomNumberGenerator) -> Duration {
        let clamped = min(max(fraction, 0), 1)
        guard clamped > 0, delay > .zero else { return delay }
        // Whole milliseconds of jitter keep the result exact and storable.
        let spanMilliseconds = Int64((Self.seconds(delay) * clamped * 1000).rounded(.down))
        guard spanMilliseconds > 0 else { return delay }
        return delay + .milliseconds(Int64.random(in: 0...spanMilliseconds, using: &generator))
    }

    /// `share` (clamped to 0…1) of `delay`, in whole milliseconds (exact and storable): the
    /// random extra wait of a retry drawn by the node (``MeshNodeMachine/Settings/outboxRetryJitter``).
    public static func share(_ share: Double, of delay: Duration) -> Duration {
        let clamped = min(max(share.isFinite ? share : 0, 0), 1)
        guard clamped > 0, delay > .zero else { return .zero }
        return .milliseconds(Int64((seconds(delay) * clamped * 1000).rounded(.down)))
    }

    /// `duration` in seconds as a `Double` (for `Date` arithmetic).
    public static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
