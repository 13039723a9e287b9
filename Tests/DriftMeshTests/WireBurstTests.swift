import DriftMesh
import Testing
import TestSupport

/// Frames run together in one burst of a radio that prints a trailer after each packet (the
/// E22's RSSI byte): what `MeshSealer.framesRunTogether(in:trailerBytes:)` finds.
@Suite("Frames run together in one burst")
struct WireBurstTests {
    static func frame(_ size: Int, packetID: UInt32, kind: FrameKind = .broadcast, destination: NodeID? = nil,
                      sealer: MeshSealer) throws -> [UInt8] {
        let header = WireFixtures.header(kind: kind, destination: destination, packetID: packetID)
        return try sealer.seal(header: header, plaintext: WireFixtures.payload(size, seed: UInt8(truncatingIfNeeded: packetID)))
    }

    /// `frames` each followed by one trailer byte, and the ranges of the frames in it.
    static func burst(_ frames: [[UInt8]], trailers: [UInt8]? = nil) -> (bytes: [UInt8], ranges: [Range<Int>]) {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for (index, frame) in frames.enumerated() {
            ranges.append(bytes.count..<(bytes.count + frame.count))
            bytes += frame
            bytes.append(trailers?[index] ?? UInt8(200 + index))
        }
        return (bytes, ranges)
    }

    @Test("two packets run together are found, each up to its trailer, at every size pair")
    func twoFrames() throws {
        let sealer = try WireFixtures.sealer()
        for first in [0, 1, 17, 60, 120, 201] {
            for second in [0, 5, 48, 201] {
                let (bytes, ranges) = Self.burst([try Self.frame(first, packetID: 1, sealer: sealer),
                                                  try Self.frame(second, packetID: 2, sealer: sealer)])
                #expect(sealer.framesRunTogether(in: bytes, trailerBytes: 1) == ranges, "\(first) + \(second)")
            }
        }
    }

    @Test("three packets, one of them directed with an origin tag, and a trailer of two bytes")
    func threeFrames() throws {
        let sealer = try WireFixtures.sealer()
        let me = BoxKeyPair()
        let peer = BoxKeyPair()
        let originKey = try sealer.originKey(mine: me, peerPublicKey: peer.publicKeyBytes)
        let directed = try sealer.seal(header: WireFixtures.header(kind: .directed, destination: NodeID(9), packetID: 7),
                                       plaintext: WireFixtures.payload(40), originKey: originKey)
        let frames = [try Self.frame(30, packetID: 5, sealer: sealer), directed, try Self.frame(3, packetID: 6, sealer: sealer)]
        let (bytes, ranges) = Self.burst(frames)
        #expect(sealer.framesRunTogether(in: bytes, trailerBytes: 1) == ranges)

        var twoByteTrailers: [UInt8] = []
        var twoByteRanges: [Range<Int>] = []
        for frame in frames {
            twoByteRanges.append(twoByteTrailers.count..<(twoByteTrailers.count + frame.count))
            twoByteTrailers += frame + [0xAA, 0x55]
        }
        #expect(sealer.framesRunTogether(in: twoByteTrailers, trailerBytes: 2) == twoByteRanges)
    }

    @Test("one packet, noise, a foreign network's packets and a lone trailer are not split")
    func notSplit() throws {
        let sealer = try WireFixtures.sealer()
        let foreign = try MeshSealer(networkKey: WireFixtures.otherNetworkKey)
        let one = Self.burst([try Self.frame(80, packetID: 1, sealer: sealer)]).bytes
        #expect(sealer.framesRunTogether(in: one, trailerBytes: 1) == nil, "one packet stays one")
        #expect(sealer.framesRunTogether(in: [], trailerBytes: 1) == nil)
        #expect(sealer.framesRunTogether(in: [0x42], trailerBytes: 1) == nil)
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<230).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(sealer.framesRunTogether(in: noise, trailerBytes: 1) == nil)
        let ours = try Self.frame(50, packetID: 1, sealer: sealer)
        let theirs = try Self.frame(50, packetID: 2, sealer: foreign)
        #expect(sealer.framesRunTogether(in: Self.burst([ours, theirs]).bytes, trailerBytes: 1) == nil,
                "a packet this network cannot open is not handed on as one of ours")
        // A packet and the first half of another: the half does not open, so no split into frames exists.
        let next = try Self.frame(100, packetID: 3, sealer: sealer)
        #expect(sealer.framesRunTogether(in: Self.burst([ours, Array(next.prefix(60))]).bytes, trailerBytes: 1) == nil)
        // Nothing of this network in it: no packets are read out of it either.
        #expect(sealer.packetsRunTogether(in: one, trailerBytes: 1) == nil, "one packet stays one")
        #expect(sealer.packetsRunTogether(in: noise, trailerBytes: 1) == nil)
        #expect(sealer.packetsRunTogether(in: Self.burst([theirs]).bytes, trailerBytes: 1) == nil)
        #expect(sealer.packetsRunTogether(in: Self.burst([theirs, try Self.frame(20, packetID: 9, sealer: foreign)]).bytes,
                                          trailerBytes: 1) == nil, "two foreign packets are not ours to split")
        #expect(sealer.packetsRunTogether(in: [], trailerBytes: 1) == nil)
        #expect(sealer.packetsRunTogether(in: ours, trailerBytes: 1) == nil, "a frame without its trailer is no split")
    }

    @Test("a frame beside a packet that does not open — another network's, another radio's, cut short, damaged — is found, before, between or after")
    func besideAPacketThatDoesNotOpen() throws {
        let sealer = try WireFixtures.sealer()
        let foreign = try MeshSealer(networkKey: WireFixtures.otherNetworkKey)
        var generator = SystemRandomNumberGenerator()
        let ours = try Self.frame(50, packetID: 1, sealer: sealer)
        let later = try Self.frame(120, packetID: 2, sealer: sealer)
        let theirs = try Self.frame(70, packetID: 3, sealer: foreign)
        let radioPacket = (0..<23).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var damaged = try Self.frame(40, packetID: 4, sealer: sealer)
        damaged[30] ^= 0x01
        let cutShort = Array(try Self.frame(100, packetID: 5, sealer: sealer).prefix(60))
        for other in [theirs, radioPacket, damaged, cutShort, [0x07]] {
            for (frames, opening) in [([ours, other], [true, false]), ([other, ours], [false, true]),
                                      ([ours, other, later], [true, false, true]), ([other, ours, later], [false, true, true]),
                                      ([ours, later, other], [true, true, false])] {
                let (bytes, ranges) = Self.burst(frames)
                let parts = sealer.packetsRunTogether(in: bytes, trailerBytes: 1)
                #expect(parts == zip(ranges, opening).map { MeshSealer.BurstPart($0, opens: $1) },
                        "\(frames.map(\.count)) \(opening)")
            }
        }
        // Frames of this network alone are still found as before.
        let (bytes, ranges) = Self.burst([ours, later])
        #expect(sealer.packetsRunTogether(in: bytes, trailerBytes: 1) == ranges.map { MeshSealer.BurstPart($0, opens: true) })
        // Two packets that do not open are one too many: nothing is read out but the frame would be guessing.
        #expect(sealer.packetsRunTogether(in: Self.burst([theirs, ours, radioPacket]).bytes, trailerBytes: 1) == nil)
    }

    @Test("a packet tampered with after the cut is not split off: both halves must open")
    func tampered() throws {
        let sealer = try WireFixtures.sealer()
        let first = try Self.frame(40, packetID: 1, sealer: sealer)
        var second = try Self.frame(40, packetID: 2, sealer: sealer)
        second[30] ^= 0x01
        #expect(sealer.framesRunTogether(in: Self.burst([first, second]).bytes, trailerBytes: 1) == nil)
        // Read out as packets, the first is saved and the tampered one goes on as a packet that does not open.
        let (bytes, ranges) = Self.burst([first, second])
        #expect(sealer.packetsRunTogether(in: bytes, trailerBytes: 1) == [.init(ranges[0], opens: true), .init(ranges[1], opens: false)])
    }

    @Test("bytes that look like a frame's start at every position cost a bounded search and split nothing")
    func hostileBurst() throws {
        let sealer = try WireFixtures.sealer()
        // Version 1 and this network's hint repeated: every position passes the cheap check.
        let shaped = (0..<233).map { $0 % 2 == 0 ? MeshFrameCodec.version << 4 | 1 : sealer.networkHint }
        #expect(sealer.framesRunTogether(in: shaped + [0x80], trailerBytes: 1) == nil)
        #expect(sealer.packetsRunTogether(in: shaped + [0x80], trailerBytes: 1) == nil)
        let more = Array(repeating: [try Self.frame(10, packetID: 4, sealer: sealer)], count: MeshSealer.maximumFramesRunTogether + 1)
            .flatMap { $0 }
        let (bytes, _) = Self.burst(more)
        #expect(sealer.framesRunTogether(in: bytes, trailerBytes: 1) == nil,
                "more than \(MeshSealer.maximumFramesRunTogether) packets in one burst are not searched for")
    }

    @Test("random bursts: every packet run together is found as it was sent, and any split handed on is sound",
          arguments: Array(UInt64(1)...10))
    func randomBursts(seed: UInt64) throws {
        let sealer = try WireFixtures.sealer()
        let foreign = try MeshSealer(networkKey: WireFixtures.otherNetworkKey)
        var random = SeededGenerator(seed: seed)
        var packetID: UInt32 = 0
        var found = 0
        for round in 0..<300 {
            // 1…4 packets: frames of this network, and at most one that does not open.
            let count = Int.random(in: 1...4, using: &random)
            let unopened = Int.random(in: 0...1, using: &random) == 1 ? Int.random(in: 0..<count, using: &random) : nil
            var packets: [[UInt8]] = []
            for index in 0..<count {
                packetID += 1
                let size = Int.random(in: 0...120, using: &random)
                if index != unopened {
                    packets.append(try Self.frame(size, packetID: packetID, sealer: sealer))
                    continue
                }
                switch Int.random(in: 0...3, using: &random) {
                case 0: packets.append(try Self.frame(size, packetID: packetID, sealer: foreign))
                case 1: packets.append((0..<Int.random(in: 1...60, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
                case 2:
                    let whole = try Self.frame(size, packetID: packetID, sealer: sealer)
                    packets.append(Array(whole.prefix(Int.random(in: 1..<whole.count, using: &random))))
                default:
                    // Anywhere but the relay's bytes (hops taken, relayer: rewritten on the way, not authenticated).
                    var damaged = try Self.frame(size, packetID: packetID, sealer: sealer)
                    let position = [0, 1, 2] + Array(5..<damaged.count)
                    damaged[position[Int.random(in: 0..<position.count, using: &random)]] ^= UInt8.random(in: 1...255, using: &random)
                    packets.append(damaged)
                }
            }
            let trailers = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            let (bytes, ranges) = Self.burst(packets, trailers: trailers)
            let parts = sealer.packetsRunTogether(in: bytes, trailerBytes: 1)
            // Sound: the parts tile the burst, each followed by its trailer; those said to open do, the others do not.
            if let parts {
                var next = 0
                for part in parts {
                    #expect(part.range.lowerBound == next, "round \(round)")
                    next = part.range.upperBound + 1
                    #expect(((try? sealer.open(Array(bytes[part.range]))) != nil) == part.opens, "round \(round)")
                }
                #expect(next == bytes.count, "round \(round)")
                #expect(parts.count >= 2 && parts.contains(where: \.opens), "round \(round)")
            }
            // Complete: two or more packets with a frame of this network among them come out as they went in.
            // (A damaged frame that still opened cannot happen: the tag covers it.)
            let expected = zip(ranges, packets.indices).map { MeshSealer.BurstPart($0, opens: $1 != unopened) }
            if count >= 2, expected.contains(where: \.opens) {
                #expect(parts == expected, "round \(round): \(packets.map(\.count)), unopened \(String(describing: unopened))")
                found += 1
            } else {
                #expect(parts == nil, "round \(round)")
            }
        }
        #expect(found > 100, "the rounds held enough bursts to split")
    }
}
