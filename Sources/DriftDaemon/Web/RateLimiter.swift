import Foundation
import Synchronization

/// Token buckets by key ("open:token:ab12…", "create:ip:10.0.0.7"): `burst` requests at
/// once, refilled at `perHour` an hour. Thread-safe; bounded (the least recently used
/// keys are dropped past ``maximumKeys``), so a flood of new keys cannot grow memory.
public final class RateLimiter: Sendable {
    public struct Rule: Sendable, Equatable {
        public var burst: Double
        public var perHour: Double
        public init(burst: Double, perHour: Double) {
            self.burst = burst
            self.perHour = perHour
        }
    }

    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    public let maximumKeys: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    public init(maximumKeys: Int = 20_000) {
        self.maximumKeys = maximumKeys
    }

    /// Takes one token from `key`'s bucket. Returns `nil` when admitted, else the seconds
    /// until a token is back.
    public func admit(_ key: String, rule: Rule, now: Date) -> TimeInterval? {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: rule.burst, updatedAt: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updatedAt))
            bucket.tokens = min(rule.burst, bucket.tokens + elapsed * rule.perHour / 3600)
            bucket.updatedAt = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return (1 - bucket.tokens) * 3600 / max(rule.perHour, 0.000_1)
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            if buckets.count > maximumKeys {
                // Drop the stalest tenth (full buckets are the same as no bucket).
                let stale = buckets.sorted { $0.value.updatedAt < $1.value.updatedAt }.prefix(maximumKeys / 10)
                for (key, _) in stale { buckets[key] = nil }
            }
            return nil
        }
    }

    /// Number of keys held (for tests).
    public var keyCount: Int { buckets.withLock { $0.count } }
}
