import DriftMesh
import Testing

@Suite("Mesh frame sealing (ChaCha20-Poly1305 with the network key)")
struct WireSealerTests {
    static let shapes: [(String, MeshHeader)] = [
        ("broadcast", WireFixtures.header()),
        ("broadcast fragment", WireFixtures.header(fragment: .init(index: 1, count: 4))),
        ("directed", WireFixtures.header(kind: .directed, destination: NodeID(0x0BAD_F00D), wantsAck: true)),
        ("directed fragment", WireFixtures.header(kind: .directed, destination: NodeID(7), fragment: .init(index: 0, count: 2))),
    ]

    @Test("Round trip at every plaintext size 0…max, every header shape, with and without origin tag")
    func roundTripEverySize() throws {
        let sealer = try WireFixtures.sealer()
        let me = BoxKeyPair()
        let peer = BoxKeyPair()
        let originKey = try sealer.originKey(mine: me, peerPublicKey: peer.publicKeyBytes)
        for (name, header) in Self.shapes {
            for tagged in [false, true] {
                let max = MeshFrameCodec.maxPlaintext(for: header, originTagged: tagged)
                for size in 0...max {
                    let plaintext = WireFixtures.payload(size, seed: UInt8(truncatingIfNeeded: size))
                    let frame = try tagged
                        ? sealer.seal(header: header, plaintext: plaintext, originKey: originKey)
                        : sealer.seal(header: header, plaintext: plaintext)
                    let overhead = MeshFrameCodec.overheadBytes(
                        hasDestination: header.destination != nil, fragmented: header.fragment != nil, originTagged: tagged)
                    #expect(frame.count == size + overhead, "\(name) \(size)")
                    #expect(frame.count <= MeshFrame.maxBytes)
                    let opened = try sealer.open(frame)
                    #expect(opened.header == header, "\(name) \(size)")
                    #expect(opened.plaintext == plaintext, "\(name) \(size)")
                }
                let tooBig = WireFixtures.payload(max + 1)
                #expect(throws: MeshWireError.plaintextTooLarge(size: max + 1, max: max)) {
                    try tagged
                        ? sealer.seal(header: header, plaintext: tooBig, originKey: originKey)
                        : sealer.seal(header: header, plaintext: tooBig)
                }
            }
        }
    }

    @Test("One flipped bit anywhere authenticated is rejected; hopsTaken and relayer are not authenticated")
    func bitFlips() throws {
        let sealer = try WireFixtures.sealer()
        for (name, header) in Self.shapes {
            let frame = try sealer.seal(header: header, plaintext: WireFixtures.payload(40))
            for position in 0..<frame.count {
                for bit in 0..<8 {
                    var altered = frame
                    altered[position] ^= 1 << bit
                    let unauthenticated = (position == 3 && bit < 4) || position == 4
                    if unauthenticated {
                        // The relay-owned bits: either still opens, or a hop count the decoder refuses.
                        if let opened = try? sealer.open(altered) {
                            #expect(opened.plaintext == WireFixtures.payload(40))
                        }
                    } else {
                        #expect(throws: MeshWireError.self, "\(name) byte \(position) bit \(bit)") {
                            try sealer.open(altered)
                        }
                    }
                }
            }
        }
    }

    @Test("The relayer byte and a legal hopsTaken rewrite still open")
    func relayFieldsRewritable() throws {
        let sealer = try WireFixtures.sealer()
        var frame = try sealer.seal(header: WireFixtures.header(), plaintext: [9, 9])
        frame[4] = 0xEE
        frame[3] = 0x32
        let opened = try sealer.open(frame)
        #expect(opened.header.relayer == 0xEE)
        #expect(opened.header.hopsTaken == 2)
    }

    @Test("A frame sealed with another network key is rejected")
    func wrongKey() throws {
        let other = try MeshSealer(networkKey: WireFixtures.otherNetworkKey)
        let sealer = try WireFixtures.sealer()
        let frame = try other.seal(header: WireFixtures.header(), plaintext: [1, 2, 3])
        #expect(throws: MeshWireError.self) { try sealer.open(frame) }
        // Even when the hints collide, the AEAD refuses it.
        var sameHint = frame
        sameHint[1] = sealer.networkHint
        #expect(throws: MeshWireError.authenticationFailed) { try sealer.open(sameHint) }
        if other.networkHint != sealer.networkHint {
            #expect(throws: MeshWireError.wrongNetwork(hint: other.networkHint)) { try sealer.open(frame) }
        }
    }

    @Test("Truncation at every length is a typed error")
    func truncation() throws {
        let sealer = try WireFixtures.sealer()
        let originKey = try sealer.originKey(mine: BoxKeyPair(), peerPublicKey: BoxKeyPair().publicKeyBytes)
        let header = WireFixtures.header(kind: .directed, destination: NodeID(5), fragment: .init(index: 1, count: 2))
        for frame in [
            try sealer.seal(header: WireFixtures.header(), plaintext: WireFixtures.payload(30)),
            try sealer.seal(header: header, plaintext: WireFixtures.payload(30), originKey: originKey),
        ] {
            for length in 0..<frame.count {
                #expect(throws: MeshWireError.self, "length \(length)") { try sealer.open(Array(frame.prefix(length))) }
            }
        }
    }

    @Test("Bad network key lengths are refused")
    func badNetworkKey() {
        #expect(throws: MeshWireError.self) { try MeshSealer(networkKey: [1, 2, 3]) }
        #expect(throws: MeshWireError.self) { try MeshSealer(networkKey: [UInt8](repeating: 0, count: 33)) }
    }

    @Test("Same network key → same hint and interoperable sealers")
    func deterministicDerivation() throws {
        let a = try WireFixtures.sealer()
        let b = try WireFixtures.sealer()
        #expect(a.networkHint == b.networkHint)
        let frame = try a.seal(header: WireFixtures.header(), plaintext: [4, 5, 6])
        #expect(try b.open(frame).plaintext == [4, 5, 6])
        #expect(try a.seal(header: WireFixtures.header(), plaintext: [4, 5, 6]) == frame)
    }
}
