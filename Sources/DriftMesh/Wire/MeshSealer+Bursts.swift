extension MeshSealer {
    /// The most packets one burst is searched for (two are what a late reader meets; more would
    /// take a reader stalled for several packets' airtime).
    public static let maximumFramesRunTogether = 4

    /// The most frame-opening attempts one burst's search makes. Two frames of this network
    /// run together take a handful (a cut is tried only where the next frame's start is seen);
    /// a frame of this network beside a packet it cannot open takes up to one per byte of the
    /// frame (nothing marks where it ends). Bytes shaped to pass the cheap check everywhere
    /// stop here instead of costing a search per pair of positions.
    public static let maximumOpensPerBurst = 512

    /// One packet of a burst: its bytes (without the trailer after them), and whether they open
    /// as a frame of this network.
    public struct BurstPart: Sendable, Equatable {
        public var range: Range<Int>
        public var opens: Bool

        public init(_ range: Range<Int>, opens: Bool) {
            self.range = range
            self.opens = opens
        }
    }

    /// The frames of this network in a burst that several packets ran together in, each packet
    /// followed by `trailerBytes` the radio adds to it (the E22 prints a packet's RSSI byte after
    /// it; two packets printed within one UART idle gap, or found together in the UART's buffer
    /// by a reader late by more than the gap, arrive as one burst).
    ///
    /// Returns the byte ranges of the frames, first to last, each followed by its trailer, when
    /// the burst is two or more frames that open (up to ``maximumFramesRunTogether``); `nil` when
    /// the burst is one frame that opens, or no split into frames that open exists. A split is
    /// tried only where the bytes after a trailer start as a frame of this network does (version
    /// and network hint), so a burst of noise costs a scan, not an authentication check per byte.
    public func framesRunTogether(in burst: [UInt8], trailerBytes: Int) -> [Range<Int>]? {
        precondition(trailerBytes >= 0, "trailerBytes must not be negative")
        var budget = Self.maximumOpensPerBurst
        guard let parts = parts(in: burst, from: 0, trailerBytes: trailerBytes, left: Self.maximumFramesRunTogether,
                                unopened: false, budget: &budget),
              parts.count >= 2 else { return nil }
        return parts.map(\.range)
    }

    /// The packets a burst holds when at least one of them is a frame of this network: frames
    /// that open (``framesRunTogether(in:trailerBytes:)``), or such frames beside one packet
    /// that does not open — another network's frame, another radio's packet, a frame cut short
    /// or damaged — before, between or after them. Each part is followed by its trailer.
    ///
    /// `nil` when the burst is one packet, or holds no frame that opens, or no such split exists
    /// within ``maximumFramesRunTogether`` parts and ``maximumOpensPerBurst`` attempts. A frame
    /// that opens cannot be forged, so the frames found are the ones sent; where the part that
    /// does not open begins and ends is read from them.
    public func packetsRunTogether(in burst: [UInt8], trailerBytes: Int) -> [BurstPart]? {
        precondition(trailerBytes >= 0, "trailerBytes must not be negative")
        var budget = Self.maximumOpensPerBurst
        // Frames of this network alone are tried first at every step of the search (a cut that
        // opens is the frame's only one), so where they make the whole burst they are found.
        guard let parts = parts(in: burst, from: 0, trailerBytes: trailerBytes, left: Self.maximumFramesRunTogether,
                                unopened: true, budget: &budget),
              parts.count >= 2, parts.contains(where: \.opens) else { return nil }
        return parts
    }

    /// The parts from `start` to the burst's end, each followed by its trailer, at most `left`
    /// of them; one part that does not open may be among them when `unopened` is true. `nil`
    /// when no such split exists or the budget of opening attempts ran out.
    ///
    /// The cheap tries go first — a cut where the next frame's start is seen, a part that does
    /// not open up to where a frame starts — and the dear one last: a frame of this network
    /// followed by something else, cut at every byte.
    private func parts(in burst: [UInt8], from start: Int, trailerBytes: Int, left: Int, unopened: Bool,
                       budget: inout Int) -> [BurstPart]? {
        let end = burst.count - trailerBytes
        let smallest = MeshFrameCodec.fixedHeaderBytes + MeshFrameCodec.tagBytes
        guard left > 0, end > start, budget > 0 else { return nil }
        let startsAsFrame = looksLikeFrame(burst, at: start, end: end)
        if startsAsFrame, end - start >= smallest, opens(burst, start..<end, budget: &budget) {
            return [BurstPart(start..<end, opens: true)]
        }
        guard left > 1 else { return unopened ? [BurstPart(start..<end, opens: false)] : nil }
        // A frame of this network first, ending at `cut` before `limit`; its trailer follows, the
        // next part starts at `next`. First only where the next frame's start is seen, then (with
        // a part that may not open after it) anywhere.
        func frameFirst(anywhere: Bool, before limit: Int, budget: inout Int) -> [BurstPart]? {
            guard startsAsFrame else { return nil }
            var cut = start + smallest
            while cut + trailerBytes < limit, budget > 0 {
                let next = cut + trailerBytes
                if looksLikeFrame(burst, at: next, end: end) != anywhere, opens(burst, start..<cut, budget: &budget),
                   let rest = parts(in: burst, from: next, trailerBytes: trailerBytes, left: left - 1, unopened: unopened, budget: &budget) {
                    return [BurstPart(start..<cut, opens: true)] + rest
                }
                cut += 1
            }
            return nil
        }
        if let found = frameFirst(anywhere: false, before: end, budget: &budget) { return found }
        guard unopened else { return nil }
        // The part that does not open first, up to the first place from which frames of this
        // network only run to the end…
        var junkFirst: [BurstPart]?
        var next = start + 1 + trailerBytes
        while next < end, budget > 0, junkFirst == nil {
            if looksLikeFrame(burst, at: next, end: end),
               let rest = parts(in: burst, from: next, trailerBytes: trailerBytes, left: left - 1, unopened: false, budget: &budget) {
                junkFirst = [BurstPart(start..<(next - trailerBytes), opens: false)] + rest
            }
            next += 1
        }
        // …unless a frame of this network opens before that place (the part that does not open
        // then lies after it): cut at every byte, up to there only.
        let limit = junkFirst?.first.map { $0.range.upperBound } ?? end
        if let found = frameFirst(anywhere: true, before: limit, budget: &budget) { return found }
        // Or the part that does not open runs to the first frame, or to the end.
        return junkFirst ?? [BurstPart(start..<end, opens: false)]
    }

    /// Whether the bytes at `position` start as a frame of this network does (version and
    /// network hint), with room for the smallest frame before `end`.
    private func looksLikeFrame(_ burst: [UInt8], at position: Int, end: Int) -> Bool {
        position + MeshFrameCodec.fixedHeaderBytes + MeshFrameCodec.tagBytes <= end
            && burst[position] >> 4 == MeshFrameCodec.version && burst[position + 1] == networkHint
    }

    private func opens(_ burst: [UInt8], _ range: Range<Int>, budget: inout Int) -> Bool {
        guard budget > 0 else { return false }
        budget -= 1
        return (try? open(Array(burst[range]))) != nil
    }
}
