/// A short description of the packets a box got lately, for repair rounds sent often
/// (the simulator's Trickle repair, issue 19): one short hash per packet instead of
/// ``SyncDigest``'s per-origin runs of 10 bytes each.
///
/// It lists every packet the sender first held within the last ``windowMinutes`` minutes as
/// `hash(salt, origin, packet id)` reduced to a hash space. A receiver holding a packet it got
/// within that window (less a margin for the two boxes getting it at different times) whose
/// hash is not listed knows the sender lacks it; a listed hash that matches none of the
/// receiver's recent packets means the receiver lacks something. Two different packets can
/// share a hash; the sender draws a new salt for every digest, so the same pair never hides a
/// packet twice and the next round finds it.
///
/// Two codings, told apart by the version byte (``SyncDigest`` is version 1, so a box that
/// only reads those rejects both as an unsupported version):
/// - **Rice-coded** (version 3, ``Coding/riceCoded``, what the node sends): `n` packets hash
///   into `n · 2^8`, and the sorted hashes go as their differences, each a unary quotient
///   (that many 1 bits, then a 0) and an 8-bit remainder, bits packed from the most
///   significant, the last byte padded with 0 bits (a Golomb-coded set). About 9.6 bits per
///   packet instead of 16: 20 packets take 30 bytes instead of 46. A missing packet hides
///   behind a listed one with probability about 1/256 per digest (16-bit hashes: n / 65 536).
/// - **16-bit hashes** (version 2, ``Coding/hashes16``, the coding before, still read): one
///   big-endian u16 per packet, newest first.
///
/// Layout: version, flags (bit 0: complete), salt u16 BE, window minutes u8, count `n`
/// (≤ ``maxEntries``), then the hashes. At most 6 + 2·88 = 182 bytes, like a full digest
/// (Rice-coded at most 6 + 110). A digest of more recent packets than fit lists the newest and
/// clears `complete`: then the receiver learns only what it lacks. The node instead lists the
/// packets of the last whole minutes that fit, under that shorter window
/// (`MeshNodeMachine.Settings.compactDigestWindowShrinks`).
public struct CompactDigest: Sendable, Hashable {
    public static let maxEntries = 88
    /// The remainder's bits in the Rice coding: `n` packets hash into `n · 2^riceBits`.
    public static let riceBits = 8

    /// How the hashes go on air; the raw value is the version byte.
    public enum Coding: UInt8, Sendable, Hashable {
        /// One big-endian 16-bit hash per packet, newest first (version 2).
        case hashes16 = 2
        /// A Golomb-coded set of the sorted hashes (version 3).
        case riceCoded = 3
    }

    public private(set) var coding: Coding
    /// Drawn by the sender for this digest.
    public var salt: UInt16
    /// The sender lists every packet it first held within this many minutes.
    public var windowMinutes: UInt8
    /// False when the newest ``maxEntries`` were listed and older recent ones left out.
    public var complete: Bool
    /// The listed hashes, each below ``hashSpace``: in the order sent (16-bit hashes newest
    /// first, Rice-coded ones ascending; the coding and the hashes are set together, so that
    /// both hold).
    public private(set) var hashes: [UInt32]

    /// The digest of `recent` (the packets first held within `windowMinutes`, newest first).
    public init(recent: [PacketKey], salt: UInt16, windowMinutes: UInt8, coding: Coding = .riceCoded) {
        self.coding = coding
        self.salt = salt
        self.windowMinutes = windowMinutes
        complete = recent.count <= Self.maxEntries
        let listed = recent.prefix(Self.maxEntries)
        let space = Self.hashSpace(coding, count: listed.count)
        let hashes = listed.map { Self.hash($0, salt: salt, space: space) }
        self.hashes = coding == .riceCoded ? hashes.sorted() : hashes
    }

    /// The hashes' range: 2^16, or `count · 2^riceBits` Rice-coded.
    static func hashSpace(_ coding: Coding, count: Int) -> UInt32 {
        switch coding {
        case .hashes16: 1 << 16
        case .riceCoded: UInt32(max(1, count)) << UInt32(riceBits)
        }
    }

    /// A box of this build that sends 16-bit hashes only because an older neighbour may be in
    /// range (`MeshNodeMachine`'s fallback) marks them: its salt's top four bits are `1010`.
    /// An older build draws its salts at random and reads any salt, so the mark costs it
    /// nothing; a receiver falls back only for unmarked 16-bit digests — 15 in 16 of an older
    /// box's. Without the mark two boxes of this build in range of each other kept each other
    /// in 16-bit hashes for good once one had heard an older box.
    public static func fallbackSalt(_ random: UInt16) -> UInt16 {
        0xA000 | (random & 0x0FFF)
    }

    /// Whether a 16-bit digest comes from a box of this build falling back (``fallbackSalt(_:)``).
    public var marksFallback: Bool {
        coding == .hashes16 && salt >> 12 == 0xA
    }

    /// The range this digest's hashes fall in.
    public var hashSpace: UInt32 { Self.hashSpace(coding, count: hashes.count) }

    /// The hash of `key` under `salt` in `0..<space` (SplitMix64 of the key and salt; its top
    /// 32 bits scaled to the space, so under 2^16 it is the top 16 bits).
    public static func hash(_ key: PacketKey, salt: UInt16, space: UInt32 = 1 << 16) -> UInt32 {
        var mix = MeshRandom(seed: (UInt64(key.origin.rawValue) << 32 | UInt64(key.packetID)) ^ (UInt64(salt) &* 0xD6E8_FEB8_6659_FD93))
        return UInt32(((mix.next() >> 32) * UInt64(space)) >> 32)
    }

    /// Whether `key`'s hash is listed (the sender holds it, or a packet sharing its hash).
    public func lists(_ key: PacketKey) -> Bool {
        hashes.contains(Self.hash(key, salt: salt, space: hashSpace))
    }

    /// Packets of `recent` (what the receiver got within the window, less its margin, and
    /// held long enough to judge) that the sender lacks, in key order. None when the digest
    /// is incomplete: a packet left out may be held.
    public func missing(from recent: some Sequence<PacketKey>) -> [PacketKey] {
        guard complete else { return [] }
        let listed = Set(hashes), space = hashSpace
        return recent.filter { !listed.contains(Self.hash($0, salt: salt, space: space)) }.sorted()
    }

    /// Whether the sender lists a packet the receiver lacks: a hash none of `held` has.
    public func listsMoreThan(_ held: some Sequence<PacketKey>) -> Bool {
        let space = hashSpace
        return !Set(hashes).subtracting(held.map { Self.hash($0, salt: salt, space: space) }).isEmpty
    }

    /// Why bytes are not a compact digest.
    public enum DecodingError: Error, Equatable, Sendable {
        case truncated(expected: Int, actual: Int)
        case unsupportedVersion(UInt8)
        case tooManyEntries(Int)
        case unknownFlags(UInt8)
        case trailingBytes(Int)
        /// A Rice-coded hash beyond the digest's hash space.
        case hashOutOfRange
        /// Padding bits after the last Rice-coded hash that are not 0.
        case nonZeroPadding
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = [coding.rawValue, complete ? 1 : 0, UInt8(salt >> 8), UInt8(truncatingIfNeeded: salt), windowMinutes, UInt8(hashes.count)]
        switch coding {
        case .hashes16:
            for h in hashes { out += [UInt8(truncatingIfNeeded: h >> 8), UInt8(truncatingIfNeeded: h)] }
        case .riceCoded:
            var bits = BitWriter()
            var previous: UInt32 = 0
            for h in hashes {
                let delta = h - previous
                previous = h
                for _ in 0..<(delta >> UInt32(Self.riceBits)) { bits.append(1, count: 1) }
                bits.append(0, count: 1)
                bits.append(delta & (1 << UInt32(Self.riceBits) - 1), count: Self.riceBits)
            }
            out += bits.bytes
        }
        return out
    }

    public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
        let b = Array(bytes)
        guard b.count >= 6 else { throw .truncated(expected: 6, actual: b.count) }
        guard let coding = Coding(rawValue: b[0]) else { throw .unsupportedVersion(b[0]) }
        guard b[1] & ~1 == 0 else { throw .unknownFlags(b[1]) }
        let n = Int(b[5])
        guard n <= Self.maxEntries else { throw .tooManyEntries(n) }
        self.coding = coding
        complete = b[1] & 1 == 1
        salt = UInt16(b[2]) << 8 | UInt16(b[3])
        windowMinutes = b[4]
        switch coding {
        case .hashes16:
            let total = 6 + 2 * n
            guard b.count >= total else { throw .truncated(expected: total, actual: b.count) }
            guard b.count == total else { throw .trailingBytes(b.count - total) }
            hashes = (0..<n).map { UInt32(b[6 + 2 * $0]) << 8 | UInt32(b[7 + 2 * $0]) }
        case .riceCoded:
            let space = Self.hashSpace(coding, count: n)
            var reader = BitReader(b, from: 6)
            var values: [UInt32] = []
            values.reserveCapacity(n)
            var previous: UInt32 = 0
            for _ in 0..<n {
                var value = previous
                while true {
                    guard let bit = reader.read(1) else { throw .truncated(expected: b.count + 1, actual: b.count) }
                    if bit == 0 { break }
                    value += 1 << UInt32(Self.riceBits)
                    guard value < space else { throw .hashOutOfRange }
                }
                guard let remainder = reader.read(Self.riceBits) else { throw .truncated(expected: b.count + 1, actual: b.count) }
                value += remainder
                guard value < space else { throw .hashOutOfRange }
                values.append(value)
                previous = value
            }
            let used = 6 + (reader.position + 7) / 8
            guard b.count == used else { throw .trailingBytes(b.count - used) }
            guard reader.restOfByteIsZero else { throw .nonZeroPadding }
            hashes = values
        }
    }
}

/// Bits appended most significant first into bytes (the last one padded with 0 bits).
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 8

    mutating func append(_ value: UInt32, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            if used == 8 {
                bytes.append(0)
                used = 0
            }
            if value >> UInt32(shift) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(used) }
            used += 1
        }
    }
}

/// Reads bits most significant first from `bytes`, starting at byte `from`.
struct BitReader {
    private let bytes: [UInt8]
    private let start: Int
    /// Bits read so far.
    private(set) var position = 0

    init(_ bytes: [UInt8], from start: Int) {
        self.bytes = bytes
        self.start = start
    }

    /// The next `count` bits (≤ 32) as a number, or nil past the end.
    mutating func read(_ count: Int) -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<count {
            let index = start + position / 8
            guard index < bytes.count else { return nil }
            value = value << 1 | UInt32(bytes[index] >> UInt8(7 - position % 8) & 1)
            position += 1
        }
        return value
    }

    /// Whether the bits left in the current byte are all 0.
    var restOfByteIsZero: Bool {
        guard position % 8 != 0 else { return true }
        let index = start + position / 8
        return bytes[index] & (0xFF >> UInt8(position % 8)) == 0
    }
}
