import Foundation

/// Binds presses of the box's button to the visitor who asked for a presence check.
///
/// A visitor asks first (``request(visitor:bottle:now:)``); the next press binds to
/// the oldest pending request that is still waiting (first come, first served), so
/// one press proves the presence of exactly one visitor and a press nobody asked
/// for proves nothing. Requests wait ``requestLifetime`` seconds (default 60);
/// proofs are kept ``proofLifetime`` seconds (default 10 min) and checked against
/// the condition's own window at open. Pure state: the daemon owns one, feeds it
/// button events and passes the matching ``PresenceProof`` into ``OpenAttempt``.
public struct PresenceBinder: Sendable, Equatable {
    /// A visitor waiting for their button press.
    public struct Request: Sendable, Equatable {
        public var visitor: TokenHash
        public var bottle: BottleID
        public var requestedAt: Date
    }

    public var requestLifetime: TimeInterval
    public var proofLifetime: TimeInterval
    public private(set) var pending: [Request] = []
    public private(set) var proofs: [PresenceProof] = []

    public init(requestLifetime: TimeInterval = 60, proofLifetime: TimeInterval = 600) {
        self.requestLifetime = requestLifetime
        self.proofLifetime = proofLifetime
    }

    /// Registers that `visitor` will press the button to open `bottle`. A repeated
    /// request by the same visitor for the same bottle replaces the earlier one
    /// (and keeps its place in the queue).
    public mutating func request(visitor: TokenHash, bottle: BottleID, now: Date) {
        prune(now: now)
        if let index = pending.firstIndex(where: { $0.visitor == visitor && $0.bottle == bottle }) {
            pending[index].requestedAt = now
        } else {
            pending.append(Request(visitor: visitor, bottle: bottle, requestedAt: now))
        }
    }

    /// Handles a button press at `now`: binds it to the oldest waiting request.
    /// - Returns: the new proof, or `nil` when nobody was waiting.
    @discardableResult
    public mutating func buttonPressed(at now: Date) -> PresenceProof? {
        prune(now: now)
        guard !pending.isEmpty else { return nil }
        let request = pending.removeFirst()
        let proof = PresenceProof(visitor: request.visitor, bottle: request.bottle,
                                  requestedAt: request.requestedAt, pressedAt: now)
        proofs.removeAll { $0.visitor == proof.visitor && $0.bottle == proof.bottle }
        proofs.append(proof)
        return proof
    }

    /// The latest proof of `visitor` for `bottle`, if any is kept.
    public func proof(visitor: TokenHash, bottle: BottleID) -> PresenceProof? {
        proofs.last { $0.visitor == visitor && $0.bottle == bottle }
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
