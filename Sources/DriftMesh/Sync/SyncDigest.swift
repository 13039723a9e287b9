/// A compact description of the packets a box holds, sent when two boxes (re)meet so each
/// can send the other what it lacks (store-and-forward reconciliation).
///
/// Held packets are summarised as per-origin runs of consecutive packet ids. Layout
/// (version 1): `01`, flags (bit 0: complete), run count `n` (≤ `maxRanges`), then
/// `n` × (origin u32 BE, first id u32 BE, span u16 BE = last − first). At most
/// 3 + 10·18 = 183 bytes: one frame. A box holding more runs than fit sends the newest
/// run of each origin first and clears `complete`.
public struct SyncDigest: Sendable, Hashable {
    public static let maxRanges = 18
    static let version: UInt8 = 1

    /// Packets `origin#first … origin#last`, all held.
    public struct Run: Sendable, Hashable {
        public var origin: NodeID
        public var first: UInt32
        public var last: UInt32

        public init(origin: NodeID, first: UInt32, last: UInt32) {
            precondition(last >= first && last - first <= UInt32(UInt16.max), "a run spans at most 65 535 ids")
            self.origin = origin
            self.first = first
            self.last = last
        }

        public func contains(_ key: PacketKey) -> Bool {
            key.origin == origin && key.packetID >= first && key.packetID <= last
        }
    }

    public var runs: [Run]
    /// False when runs were left out to fit one frame: then only the listed origins'
    /// windows are described, and nothing can be concluded about other packets.
    public var complete: Bool

    public init(runs: [Run], complete: Bool) {
        self.runs = Array(runs.prefix(Self.maxRanges))
        self.complete = complete && runs.count <= Self.maxRanges
    }

    /// The digest of `held`, within `maxRanges` runs. When the origins do not all fit (one run
    /// each), those described are taken in node-id order from the `rotation`-th (wrapping
    /// round): with the same start every digest left out the same origins, and a neighbour
    /// could never learn it lacks their packets. The node draws the start at random.
    public init(held: some Sequence<PacketKey>, maxRanges: Int = SyncDigest.maxRanges, rotation: Int = 0) {
        var byOrigin: [NodeID: [UInt32]] = [:]
        for key in held { byOrigin[key.origin, default: []].append(key.packetID) }
        var perOrigin: [[Run]] = []  // each origin's runs, newest first
        var origins = byOrigin.keys.sorted()
        if !origins.isEmpty {
            let start = ((rotation % origins.count) + origins.count) % origins.count
            origins = Array(origins[start...] + origins[..<start])
        }
        for origin in origins {
            let ids = Set(byOrigin[origin]!).sorted()
            var runs: [Run] = []
            var start = ids[0]
            var previous = ids[0]
            for id in ids.dropFirst() {
                if id == previous &+ 1, id - start < UInt32(UInt16.max) {
                    previous = id
                } else {
                    runs.append(Run(origin: origin, first: start, last: previous))
                    start = id
                    previous = id
                }
            }
            runs.append(Run(origin: origin, first: start, last: previous))
            perOrigin.append(runs.reversed())
        }
        let limit = min(maxRanges, Self.maxRanges)
        var chosen: [Run] = []
        var depth = 0
        var total = perOrigin.reduce(0) { $0 + $1.count }
        while chosen.count < limit, total > 0 {
            for runs in perOrigin where depth < runs.count && chosen.count < limit {
                chosen.append(runs[depth])
                total -= 1
            }
            depth += 1
        }
        let all = perOrigin.reduce(0) { $0 + $1.count }
        runs = chosen.sorted { ($0.origin, $0.first) < ($1.origin, $1.first) }
        complete = chosen.count == all
    }

    public func contains(_ key: PacketKey) -> Bool {
        runs.contains { $0.contains(key) }
    }

    /// Why bytes are not a digest.
    public enum DecodingError: Error, Equatable, Sendable {
        case truncated(expected: Int, actual: Int)
        case unsupportedVersion(UInt8)
        case tooManyRuns(Int)
        case unknownFlags(UInt8)
        case trailingBytes(Int)
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.version, complete ? 1 : 0, UInt8(runs.count)]
        for run in runs {
            out += be32(run.origin.rawValue) + be32(run.first)
            let span = UInt16(run.last - run.first)
            out += [UInt8(span >> 8), UInt8(truncatingIfNeeded: span)]
        }
        return out
    }

    public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
        let b = Array(bytes)
        guard b.count >= 3 else { throw .truncated(expected: 3, actual: b.count) }
        guard b[0] == Self.version else { throw .unsupportedVersion(b[0]) }
        guard b[1] & ~1 == 0 else { throw .unknownFlags(b[1]) }
        let n = Int(b[2])
        guard n <= Self.maxRanges else { throw .tooManyRuns(n) }
        let total = 3 + 10 * n
        guard b.count >= total else { throw .truncated(expected: total, actual: b.count) }
        guard b.count == total else { throw .trailingBytes(b.count - total) }
        var runs: [Run] = []
        for i in 0..<n {
            let o = 3 + 10 * i
            let first = readBE32(b, o + 4)
            let span = UInt32(b[o + 8]) << 8 | UInt32(b[o + 9])
            let (last, overflow) = first.addingReportingOverflow(span)
            guard !overflow else { throw .truncated(expected: total, actual: b.count) }
            runs.append(Run(origin: NodeID(readBE32(b, o)), first: first, last: last))
        }
        self.runs = runs
        self.complete = b[1] & 1 == 1
    }
}

func be32(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
}

func readBE32(_ b: [UInt8], _ o: Int) -> UInt32 {
    UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
}
