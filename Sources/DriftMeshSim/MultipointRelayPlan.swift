/// A multipoint-relay broadcast (OLSR, RFC 3626 §8.3.1) on a known topology with nothing
/// colliding: what sender-designated relays from the 2-hop neighbourhood can do at best, the
/// reference for issue 19's third candidate.
///
/// Neighbours are boxes with a link usable both ways (what hellos teach). Every transmitter
/// designates the fewest of its neighbours it can find that reach all its 2-hop neighbours
/// (first those that are the only way to one of them, then greedily the one reaching most
/// still unreached; ties: more neighbours, then lowest index) — with perfect 2-hop knowledge,
/// so no hello is lost or stale. The flood goes in rounds: a box that holds the packet relays
/// it once, in the round after any transmitter designated it (RFC 3626 relays only when the
/// first copy came from a box that designated it, which misses boxes; this rule does not).
/// A box decodes every transmitter it can hear (one-way links count, as in ``BroadcastPlan``);
/// relays are neighbours, so a designated box always holds the packet. With perfect knowledge
/// and no collisions it reaches every box connected to the origin over links usable both
/// ways, and those a one-way link reaches from them.
public struct MultipointRelayPlan: Sendable, Hashable {
    /// Frames put on air (the origin's included).
    public var transmissions: Int
    /// Boxes reached, the origin excluded.
    public var reached: Int
    /// All receptions of those frames (every box in range of each transmitter).
    public var receptions: Int

    /// The flood from `origin`; `hears(s, r)` says whether `r` decodes `s`.
    public init(origin: Int, count: Int, hears: (Int, Int) -> Bool) {
        let neighbours = TwoHopView.neighbours(count: count, hears: hears)
        var reachedSet = [Bool](repeating: false, count: count)
        reachedSet[origin] = true
        var sent: Set<Int> = [origin]
        var transmitters = [origin]
        var transmissions = 0
        var receptions = 0
        while !transmitters.isEmpty {
            transmissions += transmitters.count
            var designated = Set<Int>()
            for s in transmitters {
                designated.formUnion(Self.relays(of: s, neighbours: neighbours))
                for r in TwoHopView.inRange(of: s, count: count, hears: hears) {
                    reachedSet[r] = true
                    receptions += 1
                }
            }
            transmitters = designated.subtracting(sent).sorted()
            sent.formUnion(transmitters)
        }
        self.transmissions = transmissions
        self.reached = reachedSet.filter { $0 }.count - 1
        self.receptions = receptions
    }

    /// What the plan did, as the other reference plans report it.
    public var outcome: PlanOutcome { PlanOutcome(transmissions: transmissions, reached: reached, receptions: receptions) }

    /// The multipoint relays `s` designates among `neighbours[s]`.
    public static func relays(of s: Int, neighbours: [[Int]]) -> Set<Int> {
        relays(of: s, neighbours: neighbours.map(Set.init))
    }

    static func relays(of s: Int, neighbours: [Set<Int>]) -> Set<Int> {
        let oneHop = neighbours[s]
        let twoHop = oneHop.reduce(into: Set<Int>()) { $0.formUnion(neighbours[$1]) }.subtracting(oneHop).subtracting([s])
        return TwoHopView.cover(twoHop, from: oneHop, neighbours: neighbours)
    }
}
