/// A short description of the packets a box got lately, for repair rounds sent often
/// (the simulator's Trickle repair, issue 19): one 16-bit hash per packet instead of
/// ``SyncDigest``'s per-origin runs of 10 bytes each.
///
/// It lists every packet the sender first held within the last ``windowMinutes`` minutes,
/// newest first, as `hash(salt, origin, packet id)` truncated to 16 bits. A receiver holding a
/// packet it got within that window (less a margin for the two boxes getting it at different
/// times) whose hash is not listed knows the sender lacks it; a listed hash that matches none
/// of the receiver's recent packets means the receiver lacks something. Two different packets
/// can share a hash (for 20 packets, a given missing packet is hidden with probability
/// ~20 / 65 536); the sender draws a new salt for every digest, so the same pair never hides it
/// twice and the next round finds it.
///
/// Layout (version 2; ``SyncDigest`` is version 1, so a box that only reads those rejects this
/// as an unsupported version): `02`, flags (bit 0: complete), salt u16 BE, window minutes u8,
/// count `n` (≤ ``maxEntries``), `n` × hash u16 BE. At most 6 + 2·88 = 182 bytes, like a full
/// digest; 20 packets take 46. A digest of more recent packets than fit lists the newest and
/// clears `complete`: then the receiver learns only what it lacks. The node instead lists the
/// packets of the last whole minutes that fit, under that shorter window
/// (`MeshNodeMachine.Settings.compactDigestWindowShrinks`).
public struct CompactDigest: Sendable, Hashable {
    public static let maxEntries = 88
    static let version: UInt8 = 2

    /// Drawn by the sender for this digest.
    public var salt: UInt16
    /// The sender lists every packet it first held within this many minutes.
    public var windowMinutes: UInt8
    /// False when the newest ``maxEntries`` were listed and older recent ones left out.
    public var complete: Bool
    /// The listed hashes, in the order sent (newest first).
    public var hashes: [UInt16]

    /// The digest of `recent` (the packets first held within `windowMinutes`, newest first).
    public init(recent: [PacketKey], salt: UInt16, windowMinutes: UInt8) {
        self.salt = salt
        self.windowMinutes = windowMinutes
        complete = recent.count <= Self.maxEntries
        hashes = recent.prefix(Self.maxEntries).map { Self.hash($0, salt: salt) }
    }

    /// The 16-bit hash of `key` under `salt` (SplitMix64 of the key and salt, top bits).
    public static func hash(_ key: PacketKey, salt: UInt16) -> UInt16 {
        var mix = MeshRandom(seed: (UInt64(key.origin.rawValue) << 32 | UInt64(key.packetID)) ^ (UInt64(salt) &* 0xD6E8_FEB8_6659_FD93))
        return UInt16(truncatingIfNeeded: mix.next() >> 48)
    }

    /// Whether `key`'s hash is listed (the sender holds it, or a packet sharing its hash).
    public func lists(_ key: PacketKey) -> Bool {
        hashes.contains(Self.hash(key, salt: salt))
    }

    /// Packets of `recent` (what the receiver got within the window, less its margin, and
    /// held long enough to judge) that the sender lacks, in key order. None when the digest
    /// is incomplete: a packet left out may be held.
    public func missing(from recent: some Sequence<PacketKey>) -> [PacketKey] {
        guard complete else { return [] }
        let listed = Set(hashes)
        return recent.filter { !listed.contains(Self.hash($0, salt: salt)) }.sorted()
    }

    /// Whether the sender lists a packet the receiver lacks: a hash none of `held` has.
    public func listsMoreThan(_ held: some Sequence<PacketKey>) -> Bool {
        !Set(hashes).subtracting(held.map { Self.hash($0, salt: salt) }).isEmpty
    }

    /// Why bytes are not a compact digest.
    public enum DecodingError: Error, Equatable, Sendable {
        case truncated(expected: Int, actual: Int)
        case unsupportedVersion(UInt8)
        case tooManyEntries(Int)
        case unknownFlags(UInt8)
        case trailingBytes(Int)
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.version, complete ? 1 : 0, UInt8(salt >> 8), UInt8(truncatingIfNeeded: salt), windowMinutes, UInt8(hashes.count)]
        for h in hashes { out += [UInt8(h >> 8), UInt8(truncatingIfNeeded: h)] }
        return out
    }

    public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
        let b = Array(bytes)
        guard b.count >= 6 else { throw .truncated(expected: 6, actual: b.count) }
        guard b[0] == Self.version else { throw .unsupportedVersion(b[0]) }
        guard b[1] & ~1 == 0 else { throw .unknownFlags(b[1]) }
        let n = Int(b[5])
        guard n <= Self.maxEntries else { throw .tooManyEntries(n) }
        let total = 6 + 2 * n
        guard b.count >= total else { throw .truncated(expected: total, actual: b.count) }
        guard b.count == total else { throw .trailingBytes(b.count - total) }
        complete = b[1] & 1 == 1
        salt = UInt16(b[2]) << 8 | UInt16(b[3])
        windowMinutes = b[4]
        hashes = (0..<n).map { UInt16(b[6 + 2 * $0]) << 8 | UInt16(b[7 + 2 * $0]) }
    }
}
