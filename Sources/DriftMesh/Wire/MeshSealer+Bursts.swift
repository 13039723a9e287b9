extension MeshSealer {
    /// The most frames one burst is searched for (two are what a late reader meets; more would
    /// take a reader stalled for several packets' airtime).
    public static let maximumFramesRunTogether = 4

    /// The frames of this network in a burst that several packets ran together in, each packet
    /// followed by `trailerBytes` the radio adds to it (the E22 prints a packet's RSSI byte after
    /// it; two packets printed within one UART idle gap, or found together in the UART's buffer
    /// by a reader late by more than the gap, arrive as one burst).
    ///
    /// Returns the byte ranges of the frames, first to last, each followed by its trailer, when
    /// the burst is two or more frames that open (up to ``maximumFramesRunTogether``); `nil` when
    /// the burst is one frame that opens, or no split into frames that open exists (it is then
    /// handed on as one packet, and counted where it fails). A split is tried only where the
    /// bytes after a trailer start as a frame of this network does (version and network hint),
    /// so a burst of noise costs a scan, not an authentication check per byte.
    public func framesRunTogether(in burst: [UInt8], trailerBytes: Int) -> [Range<Int>]? {
        precondition(trailerBytes >= 0, "trailerBytes must not be negative")
        guard let frames = frames(in: burst, from: 0, trailerBytes: trailerBytes, left: Self.maximumFramesRunTogether),
              frames.count >= 2 else { return nil }
        return frames
    }

    /// The frames from `start` to the burst's end, each followed by its trailer; `nil` when no
    /// such split into at most `left` frames exists.
    private func frames(in burst: [UInt8], from start: Int, trailerBytes: Int, left: Int) -> [Range<Int>]? {
        let end = burst.count - trailerBytes
        let smallest = MeshFrameCodec.fixedHeaderBytes + MeshFrameCodec.tagBytes
        guard left > 0, end - start >= smallest else { return nil }
        if opens(burst, start..<end) { return [start..<end] }
        guard left > 1 else { return nil }
        // The first frame ends at `cut`, its trailer follows, and the next frame starts at `next`.
        var cut = start + smallest
        while cut + trailerBytes + smallest <= end {
            let next = cut + trailerBytes
            if burst[next] >> 4 == MeshFrameCodec.version, burst[next + 1] == networkHint, opens(burst, start..<cut),
               let rest = frames(in: burst, from: next, trailerBytes: trailerBytes, left: left - 1) {
                return [start..<cut] + rest
            }
            cut += 1
        }
        return nil
    }

    private func opens(_ burst: [UInt8], _ range: Range<Int>) -> Bool {
        (try? open(Array(burst[range]))) != nil
    }
}
