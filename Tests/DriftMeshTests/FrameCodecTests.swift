import DriftMesh
import Foundation
import Testing

@Suite("Mesh frame codec (layout, limits, relay rewrite)")
struct FrameCodecTests {
    @Test("Overhead: 32 B for a broadcast, 37 B directed+fragmented, 45 B with an origin tag")
    func overheads() {
        #expect(MeshFrameCodec.overheadBytes(hasDestination: false, fragmented: false, originTagged: false) == 32)
        #expect(MeshFrameCodec.maxPlaintext(hasDestination: false, fragmented: false, originTagged: false) == 201)
        #expect(MeshFrameCodec.maxPlaintext(hasDestination: false, fragmented: true, originTagged: false) == 200)
        #expect(MeshFrameCodec.maxPlaintext(hasDestination: true, fragmented: false, originTagged: false) == 197)
        #expect(MeshFrameCodec.maxPlaintext(hasDestination: true, fragmented: true, originTagged: true) == 188)
        #expect(MeshFrame.maxBytes == 233)
    }

    @Test("Header fields survive encode → decode, including hops, relayer, fragment, destination")
    func headerRoundTrip() throws {
        var header = WireFixtures.header(
            kind: .directed, destination: NodeID(0xDEAD_BEEF), wantsAck: true,
            fragment: .init(index: 15, count: 16))
        header.hopsTaken = 2
        header.relayer = 0x77
        let bytes = try MeshFrameCodec.encodeHeader(header, networkHint: 0xA5, originTagged: true)
        #expect(bytes.count == 21)
        #expect(bytes[0] == 0x12)  // version 1, kind directed
        let wire = try MeshFrameCodec.decodeHeader(bytes)
        #expect(wire.header == header)
        #expect(wire.networkHint == 0xA5)
        #expect(wire.originTagged)
        #expect(wire.length == 21)
    }

    @Test("Every frame kind round-trips; kinds 7…15 and versions other than 1 are refused")
    func kindsAndVersions() throws {
        for kind in FrameKind.allCases {
            let bytes = try MeshFrameCodec.encodeHeader(WireFixtures.header(kind: kind), networkHint: 0, originTagged: false)
            #expect(try MeshFrameCodec.decodeHeader(bytes).header.kind == kind)
        }
        var bytes = try MeshFrameCodec.encodeHeader(WireFixtures.header(), networkHint: 0, originTagged: false)
        for kind: UInt8 in 7...15 {
            bytes[0] = 0x10 | kind
            #expect(throws: MeshWireError.badKind(kind)) { try MeshFrameCodec.decodeHeader(bytes) }
        }
        for version: UInt8 in [0, 2, 15] {
            bytes[0] = version << 4 | 1
            #expect(throws: MeshWireError.badVersion(version)) { try MeshFrameCodec.decodeHeader(bytes) }
        }
    }

    @Test("Invalid header values are typed errors on encode and decode")
    func invalidValues() throws {
        var header = WireFixtures.header()
        header.hopStart = 8
        #expect(throws: MeshWireError.badHops(hopStart: 8, hopsTaken: 0)) {
            try MeshFrameCodec.encodeHeader(header, networkHint: 0, originTagged: false)
        }
        header = WireFixtures.header(fragment: .init(index: 2, count: 2))
        #expect(throws: MeshWireError.badFragment(index: 2, count: 2)) {
            try MeshFrameCodec.encodeHeader(header, networkHint: 0, originTagged: false)
        }
        header = WireFixtures.header(fragment: .init(index: 0, count: 17))
        #expect(throws: MeshWireError.badFragment(index: 0, count: 17)) {
            try MeshFrameCodec.encodeHeader(header, networkHint: 0, originTagged: false)
        }
        header = WireFixtures.header()
        header.expiresAtMinute = MeshFrameCodec.expiryEpochMinute - 1
        #expect(throws: MeshWireError.expiryOutOfRange(minute: header.expiresAtMinute)) {
            try MeshFrameCodec.encodeHeader(header, networkHint: 0, originTagged: false)
        }
        header.expiresAtMinute = MeshFrameCodec.latestExpiryMinute
        #expect(try MeshFrameCodec.decodeHeader(
            MeshFrameCodec.encodeHeader(header, networkHint: 0, originTagged: false)).header == header)

        var bytes = try MeshFrameCodec.encodeHeader(WireFixtures.header(fragment: .init(index: 1, count: 3)), networkHint: 0, originTagged: false)
        bytes[16] = 0x10  // index 1, count 1
        #expect(throws: MeshWireError.badFragment(index: 1, count: 1)) { try MeshFrameCodec.decodeHeader(bytes) }
        bytes[16] = 0x32  // index 3, count 3
        #expect(throws: MeshWireError.badFragment(index: 3, count: 3)) { try MeshFrameCodec.decodeHeader(bytes) }
        bytes[16] = 0x12
        bytes[2] |= 0x01
        #expect(throws: MeshWireError.badFlags(bytes[2])) { try MeshFrameCodec.decodeHeader(bytes) }
        bytes[2] &= 0xF0
        bytes[3] = 0x34  // hopStart 3, hopsTaken 4
        #expect(throws: MeshWireError.badHops(hopStart: 3, hopsTaken: 4)) { try MeshFrameCodec.decodeHeader(bytes) }
    }

    @Test("Empty, short and oversized inputs are typed errors")
    func sizes() {
        #expect(throws: MeshWireError.truncated(length: 0, needed: 16)) { try MeshFrameCodec.decodeHeader([]) }
        #expect(throws: MeshWireError.truncated(length: 1, needed: 16)) { try MeshFrameCodec.decodeHeader([0x11]) }
        #expect(throws: MeshWireError.oversize(length: 234)) {
            try MeshFrameCodec.decodeHeader([0x11] + [UInt8](repeating: 0, count: 233))
        }
    }

    @Test("A relay bumps hopsTaken and sets its short id, and stops at the hop limit")
    func relayRewrite() throws {
        let sealer = try WireFixtures.sealer()
        var frame = try sealer.seal(header: WireFixtures.header(), plaintext: [1, 2, 3])
        for hop in 1...3 {
            frame = try MeshFrameCodec.relay(frame, by: NodeID(UInt32(0xAB00 + hop)))
            let opened = try sealer.open(frame)
            #expect(opened.header.hopsTaken == UInt8(hop))
            #expect(opened.header.relayer == UInt8(hop))
            #expect(opened.plaintext == [1, 2, 3])
        }
        #expect(throws: MeshWireError.hopLimitReached) { try MeshFrameCodec.relay(frame, by: NodeID(9)) }
    }

    @Test("Expiry: minutes since 1970, rounded up; expired from the start of that minute")
    func expiry() {
        let now = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
        let minute = MeshHeader.expiryMinute(now: now, lifetime: 3600)
        #expect(minute == UInt32(((1_780_000_000.0 + 3600) / 60).rounded(.up)))
        var header = WireFixtures.header()
        header.expiresAtMinute = minute
        #expect(!header.isExpired(now: now))
        #expect(!MeshFrameCodec.isExpired(header, now: now.addingTimeInterval(3599)))
        #expect(header.isExpired(now: Date(timeIntervalSince1970: Double(minute) * 60)))
    }
}

@Suite("Mesh frame codec, golden bytes")
struct FrameGoldenTests {
    @Test("A directed, fragmented header has exactly the documented bytes")
    func goldenHeader() throws {
        var header = MeshHeader(
            kind: .directed, origin: NodeID(0x1A2B_3C4D), packetID: 0x0102_0304, destination: NodeID(0xDEAD_BEEF),
            hopStart: 5, wantsAck: true, fragment: .init(index: 2, count: 3),
            expiresAtMinute: MeshFrameCodec.expiryEpochMinute + 0x0A_0B0C)
        header.hopsTaken = 1
        header.relayer = 0x99
        let bytes = try MeshFrameCodec.encodeHeader(header, networkHint: 0x5A, originTagged: true)
        #expect(bytes == [
            0x12, 0x5A, 0xF0, 0x51, 0x99,
            0x1A, 0x2B, 0x3C, 0x4D, 0x01, 0x02, 0x03, 0x04,
            0x0A, 0x0B, 0x0C,
            0xDE, 0xAD, 0xBE, 0xEF,
            0x22,
        ])
        #expect(MeshFrameCodec.authenticatedHeader(bytes)[3...4] == [0x50, 0x00])
    }
}
