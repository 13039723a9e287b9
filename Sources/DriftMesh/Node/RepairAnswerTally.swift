/// How often a box answered each neighbour's digest with each packet it lacked: a packet goes
/// to the same neighbour at most a few times (``MeshNodeMachine/Settings/repairAnswersPerNeighbour``).
/// The daemon's node keeps one keyed by node id; the simulator's router-only repair model one
/// per box, keyed by box.
public struct RepairAnswerTally<Requester: Hashable & Sendable>: Sendable {
    private var sent: [PacketKey: [Requester: Int]] = [:]

    public init() {}

    /// Counts one more answer of `key` to `requester` and says yes, or no when it had `limit`
    /// answers already.
    public mutating func take(_ key: PacketKey, to requester: Requester, limit: Int) -> Bool {
        let count = sent[key]?[requester] ?? 0
        guard count < limit else { return false }
        sent[key, default: [:]][requester] = count + 1
        return true
    }

    /// Forgets the counts of the packets `keep` says no to.
    public mutating func forget(keeping keep: (PacketKey) -> Bool) {
        sent = sent.filter { keep($0.key) }
    }
}
