import Foundation

/// Sliding-window limits on password attempts that stop guessing without locking out
/// honest visitors.
///
/// Call ``admit(visitor:client:bottle:now:)`` before every verification and only verify
/// when it answers `.allowed`; report a wrong password with
/// ``recordFailure(visitor:client:bottle:now:)``. The limits, each per 5 minutes by default:
///
/// | scope | counts | limit | binds |
/// | --- | --- | --- | --- |
/// | `visitor` | every attempt of one device token on one bottle | 5 | everyone |
/// | `address` | wrong guesses from one network address (or one box of the mesh) on one bottle | 10 | guessers |
/// | `bottle` | wrong guesses on one bottle, from anywhere | 20 | guessers |
/// | `box` | wrong guesses on the whole box | 30 | guessers |
///
/// A *guesser* is a visitor with a wrong guess on that bottle inside the window. Only the
/// first row binds a visitor who never guessed wrong, so nobody can lock an honest visitor
/// out by failing on purpose: whatever others did, a fresh visitor's first attempt is
/// checked at once. What stops an attacker who mints a new device token per guess is the
/// address row (a new token's second guess from the same address is refused) together with
/// the API's limits on new tokens and open requests per address (`APILimits`). The box row
/// bounds the CPU that PBKDF2 spends on guessers across all bottles.
///
/// Refused attempts are not counted, so hammering does not extend a lock-out. Memory stays
/// bounded: only admitted attempts and failures are stored, dropped once out of the window.
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

    /// The four limits (see the type's table).
    public struct Policy: Sendable, Equatable, Codable {
        public var perVisitorPerBottle: Limit
        public var perAddressPerBottle: Limit
        public var perBottle: Limit
        public var perBox: Limit
        public init(perVisitorPerBottle: Limit = Limit(attempts: 5, window: 300),
                    perAddressPerBottle: Limit = Limit(attempts: 10, window: 300),
                    perBottle: Limit = Limit(attempts: 20, window: 300),
                    perBox: Limit = Limit(attempts: 30, window: 300)) {
            self.perVisitorPerBottle = perVisitorPerBottle
            self.perAddressPerBottle = perAddressPerBottle
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
        case visitor, address, bottle, box
    }

    private struct VisitorKey: Hashable, Sendable {
        var visitor: TokenHash
        var bottle: BottleID
    }

    private struct AddressKey: Hashable, Sendable {
        var client: String
        var bottle: BottleID
    }

    public let policy: Policy
    private var attempts: [VisitorKey: [Date]] = [:]
    /// When each guesser last guessed wrong on a bottle.
    private var guessers: [VisitorKey: Date] = [:]
    private var failuresByAddress: [AddressKey: [Date]] = [:]
    private var failuresByBottle: [BottleID: [Date]] = [:]
    private var failuresOnBox: [Date] = []

    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// Asks to check one password attempt by `visitor` (from network address `client`, or a
    /// mesh box's name; `nil` when unknown) on `bottle` at `now`.
    public mutating func admit(visitor: TokenHash, client: String? = nil, bottle: BottleID, now: Date) -> Decision {
        prune(now: now)
        let key = VisitorKey(visitor: visitor, bottle: bottle)
        if let wait = Self.wait(attempts[key] ?? [], policy.perVisitorPerBottle, now) {
            return .limited(scope: .visitor, retryAfter: wait)
        }
        if guessers[key] != nil {
            if let client, let wait = Self.wait(failuresByAddress[AddressKey(client: client, bottle: bottle)] ?? [], policy.perAddressPerBottle, now) {
                return .limited(scope: .address, retryAfter: wait)
            }
            if let wait = Self.wait(failuresByBottle[bottle] ?? [], policy.perBottle, now) {
                return .limited(scope: .bottle, retryAfter: wait)
            }
            if let wait = Self.wait(failuresOnBox, policy.perBox, now) {
                return .limited(scope: .box, retryAfter: wait)
            }
        }
        attempts[key, default: []].append(now)
        return .allowed
    }

    /// The admitted attempt turned out wrong: `visitor` is a guesser on `bottle` from now on
    /// (for the window), and the guess counts against the address, the bottle and the box.
    public mutating func recordFailure(visitor: TokenHash, client: String? = nil, bottle: BottleID, now: Date) {
        guessers[VisitorKey(visitor: visitor, bottle: bottle)] = now
        if let client { failuresByAddress[AddressKey(client: client, bottle: bottle), default: []].append(now) }
        failuresByBottle[bottle, default: []].append(now)
        failuresOnBox.append(now)
    }

    /// Takes back the attempt that ``admit(visitor:client:bottle:now:)`` counted at `now` for
    /// `visitor` on `bottle` when it could not be checked after all (the box was too busy to
    /// hash it): like any refused attempt, it is not counted.
    public mutating func withdraw(visitor: TokenHash, bottle: BottleID, admittedAt now: Date) {
        let key = VisitorKey(visitor: visitor, bottle: bottle)
        guard var list = attempts[key], let index = list.lastIndex(of: now) else { return }
        list.remove(at: index)
        attempts[key] = list.isEmpty ? nil : list
    }

    /// Drops every attempt and failure older than its window (also done by every `admit`).
    public mutating func prune(now: Date) {
        attempts = Self.pruned(attempts, within: policy.perVisitorPerBottle.window, now: now)
        failuresByAddress = Self.pruned(failuresByAddress, within: policy.perAddressPerBottle.window, now: now)
        failuresByBottle = Self.pruned(failuresByBottle, within: policy.perBottle.window, now: now)
        failuresOnBox = Self.recent(failuresOnBox, within: policy.perBox.window, now: now)
        let guesserWindow = max(policy.perAddressPerBottle.window, policy.perBottle.window, policy.perBox.window)
        guessers = guessers.filter { now.timeIntervalSince($0.value) < guesserWindow }
    }

    /// Forgets everything about `bottle` (when it is erased).
    public mutating func forget(bottle: BottleID) {
        attempts = attempts.filter { $0.key.bottle != bottle }
        guessers = guessers.filter { $0.key.bottle != bottle }
        failuresByAddress = failuresByAddress.filter { $0.key.bottle != bottle }
        failuresByBottle[bottle] = nil
    }

    /// Number of admitted attempts currently remembered (for tests and metrics).
    public var trackedAttempts: Int { attempts.values.reduce(0) { $0 + $1.count } }

    /// Number of wrong guesses on the whole box currently remembered.
    public var trackedFailures: Int { failuresOnBox.count }

    private static func pruned<Key>(_ lists: [Key: [Date]], within window: TimeInterval, now: Date) -> [Key: [Date]] {
        lists.compactMapValues { list in
            let kept = recent(list, within: window, now: now)
            return kept.isEmpty ? nil : kept
        }
    }

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
