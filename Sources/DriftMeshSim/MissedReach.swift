/// Why the flood missed the boxes it could have reached: every (message, box) pair where the
/// box is reachable from the origin over links usable one way (what `reachabilityBound` counts)
/// and no data frame of the flood gave it the packet, sorted by what its in-neighbours (the
/// boxes it hears) did. Shares of all (message, box) pairs, like `reachability`, so the five add
/// up to `reachabilityBound − reachability` (a box that got the packet by repair before the
/// flood's first copy counts as missed, as it does there).
public struct MissedReach: Sendable, Hashable, Codable {
    /// No box hears it: no hello or advert of it reaches anyone, so no router can know it.
    public var heardByNobody = 0.0
    /// A box it hears sent the packet and every copy was lost there (collision, half duplex).
    public var copyLost = 0.0
    /// Boxes it hears held the packet and none sent it, and none of them can ever learn of it:
    /// no path of links leads from it back to them, so neither its hellos nor its adverts reach
    /// them. Only a relay sent blind would have reached it.
    public var holderCannotKnow = 0.0
    /// Boxes it hears held the packet and none sent it, although one of them could learn of
    /// it: the routers' decision.
    public var holderDidNotSend = 0.0
    /// No box it hears held the packet: missed because boxes before it were.
    public var upstreamMissed = 0.0

    public init() {}

    /// All of them.
    public var total: Double { heardByNobody + copyLost + holderCannotKnow + holderDidNotSend + upstreamMissed }

    /// Classifies one message's misses and adds them, as counts of pairs. `heard[s][r]`: box `r`
    /// hears box `s`; `held`: the boxes the flood gave the packet (the origin too); `senders`:
    /// the boxes that sent it as a data frame.
    public mutating func count(heard: [[Bool]], origin: Int, held: Set<Int>, senders: Set<Int>) {
        let n = heard.count
        func downstream(of start: Int) -> Set<Int> {
            var seen: Set<Int> = [start]
            var stack = [start]
            while let s = stack.popLast() {
                for r in 0..<n where !seen.contains(r) && heard[s][r] {
                    seen.insert(r)
                    stack.append(r)
                }
            }
            return seen
        }
        for box in downstream(of: origin) where box != origin && !held.contains(box) {
            let hearsFrom = (0..<n).filter { $0 != box && heard[$0][box] }
            let holders = hearsFrom.filter { $0 == origin || held.contains($0) }
            if !(0..<n).contains(where: { $0 != box && heard[box][$0] }) {
                heardByNobody += 1
            } else if hearsFrom.contains(where: senders.contains) {
                copyLost += 1
            } else if holders.isEmpty {
                upstreamMissed += 1
            } else {
                let known = downstream(of: box)
                if holders.contains(where: known.contains) { holderDidNotSend += 1 } else { holderCannotKnow += 1 }
            }
        }
    }

    /// Counts turned into shares of `pairs` (message, box) pairs.
    public func share(of pairs: Int) -> MissedReach {
        let d = Double(max(pairs, 1))
        var s = self
        s.heardByNobody /= d
        s.copyLost /= d
        s.holderCannotKnow /= d
        s.holderDidNotSend /= d
        s.upstreamMissed /= d
        return s
    }
}
