import DriftMesh
import Testing

/// The repair digest of 16-bit hashes (issue 19: cheaper repair).
@Suite("Compact digest")
struct CompactDigestTests {
    static let a = NodeID(0xA0A0_A0A1), b = NodeID(0xB0B0_B0B2)

    static func keys(_ origin: NodeID, _ ids: ClosedRange<UInt32>) -> [PacketKey] {
        ids.map { PacketKey(origin: origin, packetID: $0) }
    }

    @Test("layout: version 2, flags, salt, window, count, one big-endian hash per packet; it decodes to itself")
    func layout() throws {
        let held = Self.keys(Self.a, 1...3)
        let d = CompactDigest(recent: held, salt: 0x1234, windowMinutes: 30)
        let bytes = d.encoded()
        #expect(bytes.count == 6 + 2 * 3)
        #expect(Array(bytes.prefix(6)) == [2, 1, 0x12, 0x34, 30, 3])
        let first = CompactDigest.hash(held[0], salt: 0x1234)
        #expect(Array(bytes[6...7]) == [UInt8(first >> 8), UInt8(first & 0xFF)])
        #expect(try CompactDigest(decoding: bytes) == d)
        // 20 packets, the simulator's run: 46 bytes against a full digest's 10 per origin run.
        #expect(CompactDigest(recent: Self.keys(Self.a, 1...20), salt: 1, windowMinutes: 30).encoded().count == 46)
    }

    @Test("a full digest and a compact one tell each other apart by their version byte")
    func versions() {
        let full = SyncDigest(held: Self.keys(Self.a, 1...3)).encoded()
        let compact = CompactDigest(recent: Self.keys(Self.a, 1...3), salt: 7, windowMinutes: 30).encoded()
        #expect(throws: CompactDigest.DecodingError.unsupportedVersion(1)) { try CompactDigest(decoding: full) }
        #expect(throws: SyncDigest.DecodingError.unsupportedVersion(2)) { try SyncDigest(decoding: compact) }
    }

    @Test("broken bytes are typed errors")
    func errors() {
        let good = CompactDigest(recent: Self.keys(Self.a, 1...2), salt: 7, windowMinutes: 30).encoded()
        #expect(throws: CompactDigest.DecodingError.truncated(expected: 6, actual: 3)) { try CompactDigest(decoding: good.prefix(3)) }
        #expect(throws: CompactDigest.DecodingError.truncated(expected: 10, actual: 9)) { try CompactDigest(decoding: good.prefix(9)) }
        #expect(throws: CompactDigest.DecodingError.trailingBytes(1)) { try CompactDigest(decoding: good + [0]) }
        var flags = good
        flags[1] = 2
        #expect(throws: CompactDigest.DecodingError.unknownFlags(2)) { try CompactDigest(decoding: flags) }
        var count = good
        count[5] = 89
        #expect(throws: CompactDigest.DecodingError.tooManyEntries(89)) { try CompactDigest(decoding: count) }
    }

    @Test("what the sender lacks and whether it lists what the receiver lacks")
    func reconcile() {
        let sender = Self.keys(Self.a, 1...2) + Self.keys(Self.b, 5...5)
        let d = CompactDigest(recent: sender, salt: 99, windowMinutes: 30)
        let extra = PacketKey(origin: Self.b, packetID: 6)
        #expect(d.missing(from: sender + [extra]) == [extra])
        #expect(d.missing(from: sender).isEmpty)
        #expect(!d.listsMoreThan(sender + [extra]))
        #expect(d.listsMoreThan(Array(sender.dropLast())))
    }

    @Test("more recent packets than fit: the newest are listed, and nothing is judged missing")
    func incomplete() {
        let newestFirst = Self.keys(Self.a, 1...100).reversed().map(\.self)
        let d = CompactDigest(recent: newestFirst, salt: 3, windowMinutes: 30)
        #expect(!d.complete)
        #expect(d.hashes.count == CompactDigest.maxEntries)
        #expect(d.hashes.first == CompactDigest.hash(newestFirst[0], salt: 3))
        #expect(d.missing(from: [PacketKey(origin: Self.b, packetID: 1)]).isEmpty)
        #expect(d.listsMoreThan([]))
    }

    @Test("a packet hidden by a hash collision under one salt is found under the next digest's salt")
    func collisionsDoNotHideForEver() throws {
        let listed = PacketKey(origin: Self.a, packetID: 1)
        let salt: UInt16 = 0x0BAD
        // A packet of another origin whose hash under this salt equals the listed one's.
        let target = CompactDigest.hash(listed, salt: salt)
        let hidden = try #require((UInt32(1)...2_000_000).lazy.map { PacketKey(origin: Self.b, packetID: $0) }
            .first { CompactDigest.hash($0, salt: salt) == target })
        let first = CompactDigest(recent: [listed], salt: salt, windowMinutes: 30)
        #expect(first.missing(from: [listed, hidden]).isEmpty, "the collision hides it once")
        let next = CompactDigest(recent: [listed], salt: salt &+ 1, windowMinutes: 30)
        #expect(next.missing(from: [listed, hidden]) == [hidden])
    }
}
