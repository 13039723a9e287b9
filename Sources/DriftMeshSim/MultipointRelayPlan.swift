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

    /// The flood from `origin`; `hears(s, r)` says whether `r` decodes `s`.
    public init(origin: Int, count: Int, hears: (Int, Int) -> Bool) {
        let neighbours = (0..<count).map { a in (0..<count).filter { b in b != a && hears(a, b) && hears(b, a) } }
        var reachedSet = [Bool](repeating: false, count: count)
        reachedSet[origin] = true
        var sent: Set<Int> = [origin]
        var transmitters = [origin]
        var transmissions = 0
        while !transmitters.isEmpty {
            transmissions += transmitters.count
            var designated = Set<Int>()
            for s in transmitters {
                designated.formUnion(Self.relays(of: s, neighbours: neighbours))
                for r in 0..<count where r != s && hears(s, r) { reachedSet[r] = true }
            }
            transmitters = designated.subtracting(sent).sorted()
            sent.formUnion(transmitters)
        }
        self.transmissions = transmissions
        self.reached = reachedSet.filter { $0 }.count - 1
    }

    /// The multipoint relays `s` designates among `neighbours[s]`.
    public static func relays(of s: Int, neighbours: [[Int]]) -> Set<Int> {
        let oneHop = Set(neighbours[s])
        var uncovered = Set(oneHop.flatMap { neighbours[$0] }).subtracting(oneHop).subtracting([s])
        var chosen = Set<Int>()
        // The only way to some 2-hop neighbour.
        for n2 in uncovered.sorted() {
            let via = oneHop.filter { neighbours[$0].contains(n2) }
            if via.count == 1 { chosen.formUnion(via) }
        }
        for c in chosen { uncovered.subtract(neighbours[c]) }
        while !uncovered.isEmpty {
            let best = oneHop.subtracting(chosen).max { a, b in
                let ga = uncovered.intersection(neighbours[a]).count, gb = uncovered.intersection(neighbours[b]).count
                if ga != gb { return ga < gb }
                if neighbours[a].count != neighbours[b].count { return neighbours[a].count < neighbours[b].count }
                return a > b
            }
            guard let best, !uncovered.isDisjoint(with: neighbours[best]) else { break }
            chosen.insert(best)
            uncovered.subtract(neighbours[best])
        }
        return chosen
    }
}
