/// What a box knows of the whole mesh: for every box it has heard of, the boxes that box hears
/// and how well — learnt from topology adverts flooded through the mesh
/// (``MeshRouterConfiguration/topologyPlan``; with `topologyFromHellos`, also from its
/// neighbours' hellos).
///
/// From it every box computes the same relay plan for a flood from a given origin
/// (``relays(from:minimumBucket:)``): the centralised greedy plan of the simulator's reference
/// (`BroadcastPlan`), with ties broken by node id so boxes that know the same links agree
/// without talking. Boxes are mounted and left for months, so the links change seldom and the
/// knowledge is worth its airtime; where it is stale or incomplete, the router's own coverage
/// rule still runs behind the plan (docs/mesh-routing.md, "Relays planned on the topology").
public struct MeshTopology: Sendable {
    struct Entry: Sendable, Hashable {
        /// Boxes this box hears, by the link bucket it hears them with (0…3).
        var hears: [NodeID: UInt8]
        var learnedAt: Duration
    }

    /// Pick relays hop by hop: a box reached in fewer hops goes before any box reached in
    /// more, whatever their gains, so every box is reached over as few hops as the links
    /// allow (the plain greedy plan may reach a box over a longer chain of bigger gains).
    public var shallowFirst = false {
        didSet { if shallowFirst != oldValue { changed() } }
    }

    private var boxes: [NodeID: Entry] = [:]
    /// Counts the changes of what is known (a list learnt, changed or forgotten).
    public private(set) var generation = 0
    /// Plans computed since the last change, by origin and minimum bucket.
    private var plans: [PlanKey: [NodeID]] = [:]
    /// Since the last change, by minimum bucket: for each box, the boxes whose lists give it
    /// a link at that bucket or better (who hears it).
    private var heardBy: [UInt8: [NodeID: [NodeID]]] = [:]

    private struct PlanKey: Hashable {
        var origin: NodeID
        var minimumBucket: UInt8
        var variant: UInt32
        var slack: Int
    }

    public init() {}

    /// Boxes whose neighbour lists are known.
    public var count: Int { boxes.count }

    /// The boxes `box` hears, as last learnt (`nil` when unknown).
    public func hears(_ box: NodeID) -> [NodeID: UInt8]? {
        boxes[box]?.hears
    }

    /// `box` hears these boxes (its hello's or advert's neighbour list). Returns whether that
    /// changed what is known (a refresh with the same links only renews the entry).
    @discardableResult
    public mutating func learn(_ box: NodeID, hears: [NodeID: UInt8], now: Duration) -> Bool {
        var list = hears
        list[box] = nil
        if boxes[box]?.hears == list {
            boxes[box]?.learnedAt = now
            return false
        }
        boxes[box] = Entry(hears: list, learnedAt: now)
        changed()
        return true
    }

    private mutating func changed() {
        generation &+= 1
        plans.removeAll()
        heardBy.removeAll()
    }

    /// Forgets the lists learnt more than `maxAge` before `now` (boxes gone or moved).
    public mutating func forget(olderThan maxAge: Duration, now: Duration) {
        guard boxes.values.contains(where: { now - $0.learnedAt > maxAge }) else { return }
        boxes = boxes.filter { now - $0.value.learnedAt <= maxAge }
        changed()
    }

    /// The boxes that relay a flood from `origin` in the plan: starting with the origin's
    /// transmission, the box that holds the packet, has not transmitted and is heard by the most
    /// boxes not reached yet transmits next (ties: the lowest node id; with ``shallowFirst``,
    /// among the boxes reached in the fewest hops that reach anyone new), until no transmission
    /// would reach anyone new. A link counts when the receiver's list gives it at least
    /// `minimumBucket`. `nil` when no known box hears `origin` (nothing to plan with). The
    /// origin itself is not in the set.
    ///
    /// `variant` other than 0 breaks ties by an order of the boxes drawn from it instead of
    /// their ids, and `slack` counts as tied every box whose gain is within that many boxes of
    /// the best: floods planned with different variants spread the relaying over boxes about
    /// as well placed (``MeshRouterConfiguration/topologyPlanVariants``). Every box computes
    /// the same plan from the same lists, variant and slack.
    public mutating func relays(from origin: NodeID, minimumBucket: UInt8, variant: UInt32 = 0, slack: Int = 0) -> Set<NodeID>? {
        plan(from: origin, minimumBucket: minimumBucket, variant: variant, slack: slack).map(Set.init)
    }

    /// The relays of ``relays(from:minimumBucket:variant:slack:)`` in the order the plan picked them.
    public mutating func plan(from origin: NodeID, minimumBucket: UInt8, variant: UInt32 = 0, slack: Int = 0) -> [NodeID]? {
        let key = PlanKey(origin: origin, minimumBucket: minimumBucket, variant: variant, slack: max(0, slack))
        if let plan = plans[key] { return plan }
        let out = receivers(minimumBucket: minimumBucket)
        guard out[origin] != nil else { return nil }
        // Hops from the origin at which each box was reached.
        var depth: [NodeID: Int] = [origin: 0]
        var relays: [NodeID] = []
        // Boxes reached that have not transmitted yet.
        var candidates: Set<NodeID> = []
        var current = origin
        var gains: [(box: NodeID, gain: Int, depth: Int)] = []
        while true {
            candidates.remove(current)
            if current != origin { relays.append(current) }
            let next = depth[current, default: 0] + 1
            for r in out[current] ?? [] where depth[r] == nil {
                depth[r] = next
                candidates.insert(r)
            }
            gains.removeAll(keepingCapacity: true)
            var bestGain = 0
            var bestDepth = Int.max
            for s in candidates {
                let gain = (out[s] ?? []).reduce(0) { $0 + (depth[$1] == nil ? 1 : 0) }
                guard gain > 0 else { continue }
                let d = shallowFirst ? depth[s, default: 0] : 0
                gains.append((s, gain, d))
                if d < bestDepth || (d == bestDepth && gain > bestGain) {
                    bestGain = gain
                    bestDepth = d
                }
            }
            // Among the boxes at the best depth whose gain is within `slack` of the best, the
            // first in the variant's order (variant 0: the biggest gain, then the lowest id).
            var chosen: (box: NodeID, rank: (Int, UInt64))?
            for g in gains where g.depth == bestDepth && g.gain >= bestGain - key.slack {
                let rank = variant == 0 ? (-g.gain, UInt64(g.box.rawValue)) : (0, Self.order(of: g.box, variant: variant))
                if let c = chosen, c.rank <= rank { continue }
                chosen = (g.box, rank)
            }
            guard let chosen else { break }
            current = chosen.box
        }
        plans[key] = relays
        return relays
    }

    /// Box `box`'s place in the order `variant` draws (SplitMix64 of the two): the same on
    /// every box and build.
    static func order(of box: NodeID, variant: UInt32) -> UInt64 {
        var z = (UInt64(variant) << 32 | UInt64(box.rawValue)) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The boxes some known list names at `minimumBucket` or better whose own list is unknown:
    /// the adverts we lack (``MeshRouterConfiguration/topologyRepair``).
    public func unlisted(minimumBucket: UInt8) -> Set<NodeID> {
        var named: Set<NodeID> = []
        for entry in boxes.values {
            for (id, bucket) in entry.hears where bucket >= minimumBucket && boxes[id] == nil { named.insert(id) }
        }
        return named
    }

    /// The unlisted boxes (``unlisted(minimumBucket:)``) that no box joined to `origin` by links
    /// usable both ways names. A list named only across a one-way link cannot come through the
    /// plan: the box that would relay it across does not know the boxes that hear it — it could
    /// learn so only from their lists, which would have to cross the other way, just as blind
    /// (``MeshRouterConfiguration/topologyFloodWhileLacking``). A link counts as one-way only
    /// when both lists are known and one leaves the other box out: a box whose list we lack
    /// because it does not advertise (an older build, the plan off) is taken as joined both
    /// ways to the boxes that hear it, so neither it nor the boxes behind it are among these.
    public mutating func unlistedAcrossOneWayLinks(from origin: NodeID, minimumBucket: UInt8) -> Set<NodeID> {
        let out = receivers(minimumBucket: minimumBucket)
        var joined: Set<NodeID> = [origin]
        var frontier = [origin]
        while let s = frontier.popLast() {
            let list = boxes[s]?.hears
            var next: [NodeID] = []
            // Boxes whose lists name s, when s's list names them too or is unknown.
            for r in out[s] ?? [] where list.map({ $0[r].map { $0 >= minimumBucket } ?? false }) ?? true { next.append(r) }
            // Boxes s's list names whose own list is unknown: no list shows that link one-way.
            for (u, bucket) in list ?? [:] where bucket >= minimumBucket && boxes[u] == nil { next.append(u) }
            for r in next where joined.insert(r).inserted { frontier.append(r) }
        }
        return unlisted(minimumBucket: minimumBucket).filter { box in
            !joined.contains(box) && !(out[box] ?? []).contains { joined.contains($0) }
        }
    }

    /// The boxes that hear `box` at `minimumBucket` or better, as their lists say.
    public mutating func hearers(of box: NodeID, minimumBucket: UInt8) -> [NodeID] {
        receivers(minimumBucket: minimumBucket)[box] ?? []
    }

    /// Who hears whom at `minimumBucket` or better (out[s] = the boxes that list s), built once
    /// per change for every origin's plan.
    private mutating func receivers(minimumBucket: UInt8) -> [NodeID: [NodeID]] {
        if let out = heardBy[minimumBucket] { return out }
        var out: [NodeID: [NodeID]] = [:]
        for (r, entry) in boxes {
            for (s, bucket) in entry.hears where bucket >= minimumBucket {
                out[s, default: []].append(r)
            }
        }
        heardBy[minimumBucket] = out
        return out
    }
}
