/// What the broadcast-pruning schemes of the literature that decide from 2-hop knowledge do at
/// best: each run on a known topology with perfect hellos and nothing colliding, the reference
/// for issue 19's candidate "sender-designated relays from the 2-hop neighbourhood (multipoint
/// relays / dominant pruning)" beside our router on the ideal channel (`--collision-free`).
///
/// Neighbours are boxes with a link usable both ways (what hellos teach); a box decodes every
/// transmitter it can hear (one-way links count, as in ``BroadcastPlan``); receptions count
/// every box in range of each frame, as the exact optimum counts them. The flood goes in
/// rounds: the frames of one round reach their receivers before the next round starts.

/// One message's outcome under a reference plan.
public struct PlanOutcome: Sendable, Hashable {
    /// Frames put on air (the origin's included).
    public var transmissions: Int
    /// Boxes reached, the origin excluded.
    public var reached: Int
    /// All receptions of those frames (every box in range of each transmitter).
    public var receptions: Int

    public init(transmissions: Int, reached: Int, receptions: Int) {
        self.transmissions = transmissions
        self.reached = reached
        self.receptions = receptions
    }
}

/// The 2-hop view every local scheme starts from.
enum TwoHopView {
    /// Each box's neighbours over links usable both ways.
    static func neighbours(count: Int, hears: (Int, Int) -> Bool) -> [Set<Int>] {
        (0..<count).map { a in Set((0..<count).filter { b in b != a && hears(a, b) && hears(b, a) }) }
    }

    /// The fewest of `candidates` found to cover `targets` (a box covers its neighbours): first
    /// those that are the only way to some target, then greedily the one covering most still
    /// uncovered (ties: more neighbours, then lowest index) — OLSR's multipoint-relay heuristic,
    /// the set cover every scheme here uses. Targets no candidate covers stay uncovered.
    static func cover(_ targets: Set<Int>, from candidates: Set<Int>, neighbours: [Set<Int>]) -> Set<Int> {
        var uncovered = targets
        var chosen = Set<Int>()
        for target in targets.sorted() {
            let via = candidates.filter { neighbours[$0].contains(target) }
            if via.count == 1 { chosen.formUnion(via) }
        }
        for c in chosen { uncovered.subtract(neighbours[c]) }
        while !uncovered.isEmpty {
            let best = candidates.subtracting(chosen).max { a, b in
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

    /// Every box in range of `transmitter` (one-way links count).
    static func inRange(of transmitter: Int, count: Int, hears: (Int, Int) -> Bool) -> [Int] {
        (0..<count).filter { $0 != transmitter && hears(transmitter, $0) }
    }
}

/// Partial dominant pruning (Lou and Wu, "On reducing broadcast redundancy in ad hoc wireless
/// networks", IEEE TMC 2002), the sharpest of the sender-designated schemes that need no more
/// in a frame than its sender and its forward list.
///
/// The origin designates a multipoint-relay cover of its 2-hop neighbours. A box `v` that
/// got its first copy from `u` and is on `u`'s forward list relays once and designates, among
/// its neighbours that `u` does not reach, a cover of its 2-hop neighbours left after taking
/// out those `u`, `v` or any common neighbour of `u` and `v` already reach:
/// `N²(v) − N[u] − N[v] − N(N[u] ∩ N[v])`. As the scheme prescribes, a box designated only
/// by a later copy (it held the packet already, e.g. over a one-way link from a box that did
/// not designate it) does not relay; with `onFirstCopyOnly: false` it does, once (as
/// ``MultipointRelayPlan`` does), which restores the reach one-way links cost. Several first
/// copies in one round: any of their senders may designate it (the lowest such sender's
/// lists prune).
public struct PartialDominantPruningPlan: Sendable, Hashable {
    public var outcome: PlanOutcome

    /// The flood from `origin`; `hears(s, r)` says whether `r` decodes `s`.
    public init(origin: Int, count: Int, onFirstCopyOnly: Bool = true, hears: (Int, Int) -> Bool) {
        let neighbours = TwoHopView.neighbours(count: count, hears: hears)
        var holds = Set([origin])
        var relayed = Set<Int>()
        var round: [(box: Int, heardFrom: Int?)] = [(origin, nil)]
        var outcome = PlanOutcome(transmissions: 0, reached: 0, receptions: 0)
        while !round.isEmpty {
            outcome.transmissions += round.count
            var firstCopies = Set<Int>()
            var designatedBy: [Int: Int] = [:]
            for (v, u) in round {
                relayed.insert(v)
                let receivers = TwoHopView.inRange(of: v, count: count, hears: hears)
                outcome.receptions += receivers.count
                firstCopies.formUnion(receivers.filter { !holds.contains($0) })
                for f in Self.forwardList(of: v, heardFrom: u, neighbours: neighbours) {
                    designatedBy[f] = min(designatedBy[f] ?? v, v)
                }
            }
            holds.formUnion(firstCopies)
            round = designatedBy.keys.sorted()
                .filter { (firstCopies.contains($0) || !onFirstCopyOnly) && !relayed.contains($0) }
                .map { ($0, designatedBy[$0]!) }
        }
        outcome.reached = holds.count - 1
        self.outcome = outcome
    }

    /// The boxes `v` designates after its first copy came from `u` (`nil`: `v` is the origin).
    public static func forwardList(of v: Int, heardFrom u: Int?, neighbours: [Set<Int>]) -> Set<Int> {
        let closedV = neighbours[v].union([v])
        let twoHop = neighbours[v].reduce(into: Set<Int>()) { $0.formUnion(neighbours[$1]) }
        guard let u else { return TwoHopView.cover(twoHop.subtracting(closedV), from: neighbours[v], neighbours: neighbours) }
        let closedU = neighbours[u].union([u])
        let common = closedU.intersection(closedV)
        let reachedByCommon = common.reduce(into: Set<Int>()) { $0.formUnion(neighbours[$1].union([$1])) }
        let targets = twoHop.subtracting(closedU).subtracting(closedV).subtracting(reachedByCommon)
        return TwoHopView.cover(targets, from: neighbours[v].subtracting(closedU), neighbours: neighbours)
    }
}

/// A static backbone from 2-hop knowledge: Wu and Li's marking process ("On calculating
/// connected dominating set for efficient routing in ad hoc wireless networks", 1999) pruned
/// by Dai and Wu's Rule k ("An extended localized algorithm for connected dominating set
/// formation in ad hoc wireless networks", IEEE TPDS 2004), the strongest of their local rules.
///
/// A box is marked when two of its neighbours are not neighbours of each other. A marked box
/// unmarks itself when a set of its marked neighbours of higher priority (more neighbours,
/// then higher index), connected among themselves, covers all its neighbours — a test each
/// box makes from its own and its neighbours' hello lists. The origin sends; every backbone
/// box relays once, on its first copy. With perfect knowledge the backbone is a connected
/// dominating set of each component, so every box joined to the origin both ways is reached.
public struct RuleKBackbonePlan: Sendable, Hashable {
    public var outcome: PlanOutcome

    /// The flood from `origin` over `backbone` (from ``backbone(neighbours:)``).
    public init(origin: Int, count: Int, backbone: Set<Int>, hears: (Int, Int) -> Bool) {
        var holds = Set([origin])
        var round = [origin]
        var outcome = PlanOutcome(transmissions: 0, reached: 0, receptions: 0)
        while !round.isEmpty {
            outcome.transmissions += round.count
            var next: [Int] = []
            for v in round {
                let receivers = TwoHopView.inRange(of: v, count: count, hears: hears)
                outcome.receptions += receivers.count
                for r in receivers where !holds.contains(r) {
                    holds.insert(r)
                    if backbone.contains(r) { next.append(r) }
                }
            }
            round = next
        }
        outcome.reached = holds.count - 1
        self.outcome = outcome
    }

    /// The marked boxes left after Rule k.
    public static func backbone(neighbours: [Set<Int>]) -> Set<Int> {
        let marked = Set(neighbours.indices.filter { v in
            neighbours[v].contains { a in neighbours[v].contains { b in a < b && !neighbours[a].contains(b) } }
        })
        func outranks(_ a: Int, _ b: Int) -> Bool {
            neighbours[a].count != neighbours[b].count ? neighbours[a].count > neighbours[b].count : a > b
        }
        return marked.filter { v in
            let higher = neighbours[v].filter { marked.contains($0) && outranks($0, v) }
            var seen = Set<Int>()
            for start in higher.sorted() where !seen.contains(start) {
                // One connected part of `higher` (its links are in the neighbours' hellos).
                var part: Set<Int> = [start]
                var stack = [start]
                while let x = stack.popLast() {
                    for y in neighbours[x] where higher.contains(y) && !part.contains(y) {
                        part.insert(y)
                        stack.append(y)
                    }
                }
                seen.formUnion(part)
                let covered = part.reduce(into: part) { $0.formUnion(neighbours[$1]) }
                if neighbours[v].isSubset(of: covered) { return false }
            }
            return true
        }
    }
}
