import Foundation

/// Binds presses of the box's button to the one visitor standing at the box.
///
/// A visitor asks first (``request(visitor:bottle:now:)``) and is given a press count — a
/// number from ``pressCodes`` that no other waiting request has — shown on their page only:
/// "press the button 3 times". The presses of the presence button that follow one another
/// within ``burstGap`` form one burst; when the burst ends (``burstGap`` after its last
/// press: ``settle(now:)``, or the next press after that) its count binds to the waiting
/// request with that count. So a request made first from elsewhere cannot take a press
/// meant for someone else: its count is not the one the person at the box was shown.
/// A burst whose count nobody waits for proves nothing, and a single press never proves
/// anything (the smallest count is 2), so a passer-by's press cannot prove a remote
/// requester's presence either.
///
/// Requests wait ``requestLifetime`` seconds (default 60); proofs are kept ``proofLifetime``
/// seconds (default 10 min) and checked against the condition's own window at open. With
/// every count taken, a new request is refused until the oldest one ends. Pure state: the
/// daemon owns one, feeds it every press of the presence button and passes the matching
/// ``PresenceProof`` into ``OpenAttempt``.
public struct PresenceBinder: Sendable, Equatable {
    /// A visitor waiting for their button presses.
    public struct Request: Sendable, Equatable {
        public var visitor: TokenHash
        public var bottle: BottleID
        public var requestedAt: Date
        /// How many presses prove this visitor's presence.
        public var presses: Int
    }

    /// Every press count is taken by a waiting request.
    public struct Busy: Error, Sendable, Equatable {
        /// Seconds until the oldest waiting request ends and frees its count.
        public var retryAfter: TimeInterval
        public init(retryAfter: TimeInterval) { self.retryAfter = retryAfter }
    }

    public var requestLifetime: TimeInterval
    public var proofLifetime: TimeInterval
    /// Longest pause between two presses of one burst.
    public var burstGap: TimeInterval
    /// The press counts handed out, smallest first.
    public let pressCodes: ClosedRange<Int>
    public private(set) var pending: [Request] = []
    public private(set) var proofs: [PresenceProof] = []
    /// The presses of the burst in progress.
    public private(set) var burst: [Date] = []

    public init(requestLifetime: TimeInterval = 60, proofLifetime: TimeInterval = 600, burstGap: TimeInterval = 2.5,
                pressCodes: ClosedRange<Int> = 2...6) {
        precondition(pressCodes.lowerBound >= 2, "a single press must never prove presence")
        self.requestLifetime = requestLifetime
        self.proofLifetime = proofLifetime
        self.burstGap = burstGap
        self.pressCodes = pressCodes
    }

    /// Registers that `visitor` will press the button to open `bottle`, and gives them their
    /// press count. A repeated request by the same visitor for the same bottle keeps its count
    /// and waits anew.
    /// - Throws: ``Busy`` when every count is taken.
    public mutating func request(visitor: TokenHash, bottle: BottleID, now: Date) throws(Busy) -> Request {
        prune(now: now)
        if let index = pending.firstIndex(where: { $0.visitor == visitor && $0.bottle == bottle }) {
            pending[index].requestedAt = now
            return pending[index]
        }
        let taken = Set(pending.map(\.presses))
        guard let presses = pressCodes.first(where: { !taken.contains($0) }) else {
            let oldest = pending.map(\.requestedAt).min() ?? now
            throw Busy(retryAfter: max(1, oldest.addingTimeInterval(requestLifetime).timeIntervalSince(now)))
        }
        let request = Request(visitor: visitor, bottle: bottle, requestedAt: now, presses: presses)
        pending.append(request)
        return request
    }

    /// Handles one press of the presence button at `now`. A burst that ended before it is
    /// settled first.
    /// - Returns: the proof that burst made, if any.
    @discardableResult
    public mutating func buttonPressed(at now: Date) -> PresenceProof? {
        let proof = settle(now: now)
        burst.append(now)
        return proof
    }

    /// When the burst in progress ends (call ``settle(now:)`` then); `nil` without one.
    public var deadline: Date? { burst.last.map { $0.addingTimeInterval(burstGap) } }

    /// Ends the burst in progress if its last press is ``burstGap`` old: its count binds to the
    /// waiting request with that count.
    /// - Returns: the new proof, or `nil` when no burst ended or nobody waited for its count.
    @discardableResult
    public mutating func settle(now: Date) -> PresenceProof? {
        guard let last = burst.last, now.timeIntervalSince(last) >= burstGap else { return nil }
        let count = burst.count
        burst.removeAll()
        prune(now: last)
        guard let index = pending.firstIndex(where: { $0.presses == count }) else { return nil }
        let request = pending.remove(at: index)
        let proof = PresenceProof(visitor: request.visitor, bottle: request.bottle,
                                  requestedAt: request.requestedAt, pressedAt: last)
        proofs.removeAll { $0.visitor == proof.visitor && $0.bottle == proof.bottle }
        proofs.append(proof)
        return proof
    }

    /// The latest proof of `visitor` for `bottle`, if any is kept.
    public func proof(visitor: TokenHash, bottle: BottleID) -> PresenceProof? {
        proofs.last { $0.visitor == visitor && $0.bottle == bottle }
    }

    /// The waiting request of `visitor` for `bottle`, if any.
    public func waiting(visitor: TokenHash, bottle: BottleID) -> Request? {
        pending.first { $0.visitor == visitor && $0.bottle == bottle }
    }

    /// Drops requests and proofs that are too old.
    public mutating func prune(now: Date) {
        pending.removeAll { now.timeIntervalSince($0.requestedAt) > requestLifetime }
        proofs.removeAll { now.timeIntervalSince($0.pressedAt) > proofLifetime }
    }

    /// Forgets everything about `bottle` (when it is erased).
    public mutating func forget(bottle: BottleID) {
        pending.removeAll { $0.bottle == bottle }
        proofs.removeAll { $0.bottle == bottle }
    }
}
