import DriftMesh
import Testing

/// The repair digest of short hashes, 16-bit or Rice-coded (issue 19: cheaper repair).
@Suite("Compact digest")
struct CompactDigestTests {
    static let a = NodeID(0xA0A0_A0A1), b = NodeID(0xB0B0_B0B2)

    static func keys(_ origin: NodeID, _ ids: ClosedRange<UInt32>) -> [PacketKey] {
        ids.map { PacketKey(origin: origin, packetID: $0) }
    }

    @Test("16-bit hashes: version 2, flags, salt, window, count, one big-endian hash per packet, newest first; it decodes to itself")
    func layout16() throws {
        let held = Self.keys(Self.a, 1...3)
        let d = CompactDigest(recent: held, salt: 0x1234, windowMinutes: 30, coding: .hashes16)
        let bytes = d.encoded()
        #expect(bytes.count == 6 + 2 * 3)
        #expect(Array(bytes.prefix(6)) == [2, 1, 0x12, 0x34, 30, 3])
        let first = CompactDigest.hash(held[0], salt: 0x1234)
        #expect(first < 1 << 16)
        #expect(Array(bytes[6...7]) == [UInt8(first >> 8), UInt8(first & 0xFF)])
        #expect(try CompactDigest(decoding: bytes) == d)
        // 20 packets, the simulator's run: 46 bytes against a full digest's 10 per origin run.
        #expect(CompactDigest(recent: Self.keys(Self.a, 1...20), salt: 1, windowMinutes: 30, coding: .hashes16).encoded().count == 46)
    }

    @Test("Rice-coded: version 3, the same header, then each sorted hash's difference from the one before as a unary quotient and an 8-bit remainder, most significant bit first, padded with 0 bits")
    func layoutRice() throws {
        // Two packets hash into 0..<512: hashes 3 and 300 go as 0|00000011 and 10|00101001
        // (300 − 3 = 297 = 256 + 41), 19 bits, then 5 bits of padding.
        let bytes: [UInt8] = [3, 1, 0x00, 0x07, 30, 2, 0b0000_0001, 0b1100_0101, 0b0010_0000]
        let d = try CompactDigest(decoding: bytes)
        #expect(d.coding == .riceCoded && d.complete && d.salt == 7 && d.windowMinutes == 30)
        #expect(d.hashes == [3, 300] && d.hashSpace == 512)
        #expect(d.encoded() == bytes)
        // Built from packets: sorted hashes in n · 256, decoding to itself.
        let held = Self.keys(Self.a, 1...20)
        let built = CompactDigest(recent: held, salt: 0x4321, windowMinutes: 30)
        #expect(built.coding == .riceCoded && built.hashSpace == 20 * 256)
        #expect(built.hashes == held.map { CompactDigest.hash($0, salt: 0x4321, space: 20 * 256) }.sorted())
        #expect(try CompactDigest(decoding: built.encoded()) == built)
        // An empty digest is its header alone.
        #expect(CompactDigest(recent: [], salt: 1, windowMinutes: 30).encoded() == [3, 1, 0, 1, 30, 0])
    }

    @Test("Rice-coded digests take about 9.6 bits a packet: 20 packets in about 30 bytes with the header, against 46; 88 in at most 116")
    func riceIsShorter() {
        var total = 0
        for salt in UInt16(0)..<200 {
            total += CompactDigest(recent: Self.keys(Self.a, 1...20), salt: salt, windowMinutes: 30).encoded().count
        }
        let mean = Double(total) / 200
        #expect(mean > 6 + 20 * 9.0 / 8 && mean < 31, "\(mean)")
        for salt in UInt16(0)..<50 {
            #expect(CompactDigest(recent: Self.keys(Self.b, 1...88), salt: salt, windowMinutes: 30).encoded().count <= 6 + 110)
        }
    }

    @Test("a fallback salt has the top four bits 1010 and keeps the other twelve; only 16-bit digests carry the mark; one random salt in 16 has it")
    func fallbackMark() throws {
        #expect(CompactDigest.fallbackSalt(0x0000) == 0xA000)
        #expect(CompactDigest.fallbackSalt(0xFFFF) == 0xAFFF)
        #expect(CompactDigest.fallbackSalt(0x5123) == 0xA123)
        let held = Self.keys(Self.a, 1...3)
        let marked = CompactDigest(recent: held, salt: CompactDigest.fallbackSalt(0x1234), windowMinutes: 30, coding: .hashes16)
        #expect(marked.marksFallback)
        #expect(try CompactDigest(decoding: marked.encoded()).marksFallback, "the mark survives the air")
        #expect(!CompactDigest(recent: held, salt: 0x1234, windowMinutes: 30, coding: .hashes16).marksFallback)
        #expect(!CompactDigest(recent: held, salt: 0xA234, windowMinutes: 30, coding: .riceCoded).marksFallback)
        let markedSalts = (0...UInt16.max).filter { CompactDigest(recent: [], salt: $0, windowMinutes: 30, coding: .hashes16).marksFallback }
        #expect(markedSalts.count == 65_536 / 16)
    }

    @Test("a full digest and a compact one tell each other apart by their version byte")
    func versions() {
        let full = SyncDigest(held: Self.keys(Self.a, 1...3)).encoded()
        #expect(throws: CompactDigest.DecodingError.unsupportedVersion(1)) { try CompactDigest(decoding: full) }
        for coding in [CompactDigest.Coding.hashes16, .riceCoded] {
            let compact = CompactDigest(recent: Self.keys(Self.a, 1...3), salt: 7, windowMinutes: 30, coding: coding).encoded()
            #expect(throws: SyncDigest.DecodingError.unsupportedVersion(coding.rawValue)) { try SyncDigest(decoding: compact) }
        }
        #expect(throws: CompactDigest.DecodingError.unsupportedVersion(4)) { try CompactDigest(decoding: [4, 1, 0, 0, 30, 0]) }
    }

    @Test("broken bytes are typed errors")
    func errors() {
        let good = CompactDigest(recent: Self.keys(Self.a, 1...2), salt: 7, windowMinutes: 30, coding: .hashes16).encoded()
        #expect(throws: CompactDigest.DecodingError.truncated(expected: 6, actual: 3)) { try CompactDigest(decoding: good.prefix(3)) }
        #expect(throws: CompactDigest.DecodingError.truncated(expected: 10, actual: 9)) { try CompactDigest(decoding: good.prefix(9)) }
        #expect(throws: CompactDigest.DecodingError.trailingBytes(1)) { try CompactDigest(decoding: good + [0]) }
        var flags = good
        flags[1] = 2
        #expect(throws: CompactDigest.DecodingError.unknownFlags(2)) { try CompactDigest(decoding: flags) }
        var count = good
        count[5] = 89
        #expect(throws: CompactDigest.DecodingError.tooManyEntries(89)) { try CompactDigest(decoding: count) }
        // Rice-coded (the layout test's bytes).
        let rice: [UInt8] = [3, 1, 0x00, 0x07, 30, 2, 0b0000_0001, 0b1100_0101, 0b0010_0000]
        #expect(throws: CompactDigest.DecodingError.truncated(expected: 9, actual: 8)) { try CompactDigest(decoding: rice.prefix(8)) }
        #expect(throws: CompactDigest.DecodingError.trailingBytes(1)) { try CompactDigest(decoding: rice + [0]) }
        var padding = rice
        padding[8] |= 1
        #expect(throws: CompactDigest.DecodingError.nonZeroPadding) { try CompactDigest(decoding: padding) }
        // A quotient that runs past the hash space (two packets: 0..<512).
        #expect(throws: CompactDigest.DecodingError.hashOutOfRange) { try CompactDigest(decoding: [3, 1, 0, 7, 30, 2, 0b1110_0000, 0, 0]) }
        #expect(throws: CompactDigest.DecodingError.hashOutOfRange) { try CompactDigest(decoding: [3, 1, 0, 7, 30, 2] + [UInt8](repeating: 0xFF, count: 4)) }
    }

    @Test("any bytes either fail with a typed error or decode to a digest that encodes to the same bytes, its hashes within its space")
    func decodingIsCanonical() {
        var rng = MeshRandom(seed: 19)
        var decoded = 0
        for i in 0..<20_000 {
            let length = 6 + Int(rng.next() % 24)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            bytes[0] = i % 2 == 0 ? 3 : 2
            bytes[1] &= 1
            bytes[5] %= 12
            guard let d = try? CompactDigest(decoding: bytes) else { continue }
            decoded += 1
            #expect(d.encoded() == bytes)
            #expect(d.hashes.allSatisfy { $0 < d.hashSpace })
            if d.coding == .riceCoded { #expect(d.hashes == d.hashes.sorted()) }
        }
        #expect(decoded > 100, "\(decoded)")
    }

    @Test("what the sender lacks and whether it lists what the receiver lacks", arguments: [CompactDigest.Coding.hashes16, .riceCoded])
    func reconcile(coding: CompactDigest.Coding) {
        let sender = Self.keys(Self.a, 1...2) + Self.keys(Self.b, 5...5)
        let d = CompactDigest(recent: sender, salt: 99, windowMinutes: 30, coding: coding)
        let extra = PacketKey(origin: Self.b, packetID: 6)
        #expect(d.missing(from: sender + [extra]) == [extra])
        #expect(d.missing(from: sender).isEmpty)
        #expect(!d.listsMoreThan(sender + [extra]))
        #expect(d.listsMoreThan(Array(sender.dropLast())))
    }

    @Test("more recent packets than fit: the newest are listed, and nothing is judged missing", arguments: [CompactDigest.Coding.hashes16, .riceCoded])
    func incomplete(coding: CompactDigest.Coding) {
        let newestFirst = Self.keys(Self.a, 1...100).reversed().map(\.self)
        let d = CompactDigest(recent: newestFirst, salt: 3, windowMinutes: 30, coding: coding)
        #expect(!d.complete)
        #expect(d.hashes.count == CompactDigest.maxEntries)
        #expect(d.lists(newestFirst[0]))
        #expect(Set(d.hashes) == Set(newestFirst.prefix(CompactDigest.maxEntries).map { CompactDigest.hash($0, salt: 3, space: d.hashSpace) }))
        #expect(d.missing(from: [PacketKey(origin: Self.b, packetID: 1)]).isEmpty)
        #expect(d.listsMoreThan([]))
    }

    @Test("a packet hidden by a hash collision under one salt is found under the next digest's salt", arguments: [CompactDigest.Coding.hashes16, .riceCoded])
    func collisionsDoNotHideForEver(coding: CompactDigest.Coding) throws {
        let listed = PacketKey(origin: Self.a, packetID: 1)
        let salt: UInt16 = 0x0BAD
        let first = CompactDigest(recent: [listed], salt: salt, windowMinutes: 30, coding: coding)
        // A packet of another origin whose hash under this salt equals the listed one's.
        let target = CompactDigest.hash(listed, salt: salt, space: first.hashSpace)
        let hidden = try #require((UInt32(1)...2_000_000).lazy.map { PacketKey(origin: Self.b, packetID: $0) }
            .first { CompactDigest.hash($0, salt: salt, space: first.hashSpace) == target })
        #expect(first.missing(from: [listed, hidden]).isEmpty, "the collision hides it once")
        let next = CompactDigest(recent: [listed], salt: salt &+ 1, windowMinutes: 30, coding: coding)
        #expect(next.missing(from: [listed, hidden]) == [hidden])
    }
}
