/// A centralised greedy broadcast plan on a known topology: the feasibility reference for
/// any router.
///
/// Knowing every link, start with the origin reached; repeatedly let the reached box that
/// has not transmitted yet and is heard by the most not-yet-reached boxes
/// transmit (ties: lowest index), until no transmission reaches anyone new. Nothing
/// collides. Greedy set cover is not guaranteed minimal, so the figures are a close
/// estimate of the best case, not a proof: `transmissions` is near the fewest frames any
/// router needs, `usefulness` near the best it can get (every box in range of a
/// transmitter decodes it, wanted or not).
public struct BroadcastPlan: Sendable, Hashable {
    /// Frames put on air (the origin's included).
    public var transmissions: Int
    /// Boxes reached, the origin excluded.
    public var reached: Int
    /// All receptions of those frames (every box in range of each transmitter).
    public var receptions: Int

    /// `reached / receptions` (1 when nothing was received).
    public var usefulness: Double { receptions == 0 ? 1 : Double(reached) / Double(receptions) }

    /// The plan from `origin`, where `hears(s, r)` says whether `r` decodes `s`.
    public init(origin: Int, count: Int, hears: (Int, Int) -> Bool) {
        var reachedSet = [Bool](repeating: false, count: count)
        var sent = [Bool](repeating: false, count: count)
        reachedSet[origin] = true
        var transmissions = 0
        var receptions = 0
        var current = origin
        while true {
            // Transmit `current`.
            sent[current] = true
            transmissions += 1
            for r in 0..<count where r != current && hears(current, r) {
                receptions += 1
                reachedSet[r] = true
            }
            var best = -1
            var bestGain = 0
            for s in 0..<count where reachedSet[s] && !sent[s] {
                var gain = 0
                for r in 0..<count where r != s && !reachedSet[r] && hears(s, r) { gain += 1 }
                if gain > bestGain { best = s; bestGain = gain }
            }
            guard best >= 0 else { break }
            current = best
        }
        self.transmissions = transmissions
        self.reached = reachedSet.filter { $0 }.count - 1
        self.receptions = receptions
    }
}
