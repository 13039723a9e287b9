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
        // Frames of this network alone first: the cheap search, and the usual case.
        for unopened in [false, true] {
            if let parts = parts(in: burst, from: 0, trailerBytes: trailerBytes, left: Self.maximumFramesRunTogether,
                                 unopened: unopened, budget: &budget),
               parts.count >= 2, parts.contains(where: \.opens) {
                return parts
            }
        }
        return nil
    }

    /// The parts from `start` to the burst's end, each followed by its trailer, at most `left`
    /// of them; one part that does not open may be among them when `unopened` is true. `nil`
    /// when no such split exists or the budget of opening attempts ran out.
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
        // A frame of this network first: it ends at `cut`, its trailer follows, the next part starts at `next`.
        if startsAsFrame {
            var cut = start + smallest
            while cut + trailerBytes < end, budget > 0 {
                let next = cut + trailerBytes
                // Without a part that may not open, only where the next frame's start is seen.
                if unopened || looksLikeFrame(burst, at: next, end: end), opens(burst, start..<cut, budget: &budget),
                   let rest = parts(in: burst, from: next, trailerBytes: trailerBytes, left: left - 1, unopened: unopened, budget: &budget) {
                    return [BurstPart(start..<cut, opens: true)] + rest
                }
                cut += 1
            }
        }
        guard unopened else { return nil }
        // The part that does not open first, then frames of this network only, from where one starts.
        var next = start + 1 + trailerBytes
        while next < end, budget > 0 {
            if looksLikeFrame(burst, at: next, end: end),
               let rest = parts(in: burst, from: next, trailerBytes: trailerBytes, left: left - 1, unopened: false, budget: &budget) {
                return [BurstPart(start..<(next - trailerBytes), opens: false)] + rest
            }
            next += 1
        }
        // Or it runs to the end.
        return [BurstPart(start..<end, opens: false)]
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
