/// How often a box answered each neighbour's digest with each packet it lacked: a packet goes
/// to the same neighbour a few times (``MeshNodeMachine/Settings/repairAnswersPerNeighbour``),
/// then once more each time a renewal period has passed since the last (a neighbour that
/// still lacks it may have been out of reach, not deaf). The daemon's node keeps one keyed by
/// node id; the simulator's router-only repair model one per box, keyed by box.
public struct RepairAnswerTally<Requester: Hashable & Sendable>: Sendable {
    /// What ``take(_:to:limit:at:renewal:)`` decided.
    public enum Verdict: Sendable, Equatable {
        /// Within the limit: send it.
        case answer
        /// Over the limit, but the renewal period has passed since the last answer: send it.
        case renewed
        /// Over the limit: do not send it.
        case capped

        /// Whether the packet is sent.
        public var sends: Bool { self != .capped }
    }

    private var sent: [PacketKey: [Requester: (count: Int, last: Duration)]] = [:]

    public init() {}

    /// Counts one more answer of `key` to `requester` at `now` and says whether to send it:
    /// yes while it had fewer than `limit` answers, then once each time `renewal` (when given)
    /// has passed since its last answer.
    public mutating func take(_ key: PacketKey, to requester: Requester, limit: Int, at now: Duration,
                              renewal: Duration?) -> Verdict {
        let (count, last) = sent[key]?[requester] ?? (0, now)
        let verdict: Verdict
        if count < limit {
            verdict = .answer
        } else if let renewal, now - last >= renewal {
            verdict = .renewed
        } else {
            return .capped
        }
        sent[key, default: [:]][requester] = (count + 1, now)
        return verdict
    }

    /// One more answer for each packet `requester` had at the limit: it got a packet it was
    /// answered with, so frames from here reach it, and what it still lacks it lost to chance
    /// (collisions) rather than to a link that does not carry. Not the packets of `got` (it
    /// holds them now). Returns how many were renewed.
    public mutating func renewCapped(for requester: Requester, limit: Int, except got: Set<PacketKey> = []) -> Int {
        var renewed = 0
        for (key, byRequester) in sent where !got.contains(key) {
            guard let entry = byRequester[requester], entry.count >= limit else { continue }
            sent[key]?[requester] = (max(0, limit - 1), entry.last)
            renewed += 1
        }
        return renewed
    }

    /// Forgets the counts of the packets `keep` says no to.
    public mutating func forget(keeping keep: (PacketKey) -> Bool) {
        sent = sent.filter { keep($0.key) }
    }
}
