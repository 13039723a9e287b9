import DriftMesh
import TestSupport
import Testing

@Suite("Fragmenter and Reassembler")
struct FragmentTests {
    private func pieces(_ payload: [UInt8], maxChunk: Int, origin: UInt32 = 0x1A2B_3C4D, first: UInt32 = 100)
        throws -> [(MeshHeader, [UInt8])]
    {
        let chunks = try Fragmenter.split(payload: payload, maxChunk: maxChunk)
        var base = WireFixtures.header()
        base.origin = NodeID(origin)
        let headers = Fragmenter.headers(base: base, firstPacketID: first, count: chunks.count)
        return Array(zip(headers, chunks))
    }

    @Test("Split: full chunks then the rest; small payloads stay whole; more than 16 pieces refused")
    func split() throws {
        #expect(try Fragmenter.split(payload: [], maxChunk: 10) == [[]])
        #expect(try Fragmenter.split(payload: WireFixtures.payload(10), maxChunk: 10).count == 1)
        let chunks = try Fragmenter.split(payload: WireFixtures.payload(25), maxChunk: 10)
        #expect(chunks.map(\.count) == [10, 10, 5])
        #expect(chunks.flatMap { $0 } == WireFixtures.payload(25))
        #expect(try Fragmenter.split(payload: WireFixtures.payload(160), maxChunk: 10).count == 16)
        #expect(throws: MeshWireError.payloadTooLarge(size: 161, maxChunk: 10)) {
            try Fragmenter.split(payload: WireFixtures.payload(161), maxChunk: 10)
        }
        #expect(throws: MeshWireError.self) { try Fragmenter.split(payload: [1], maxChunk: 0) }
        let headers = Fragmenter.headers(base: WireFixtures.header(), firstPacketID: UInt32.max, count: 3)
        #expect(headers.map(\.packetID) == [UInt32.max, 0, 1])
        #expect(headers.map(\.fragment) == [
            MeshHeader.Fragment(index: 0, count: 3), MeshHeader.Fragment(index: 1, count: 3),
            MeshHeader.Fragment(index: 2, count: 3),
        ])
    }

    @Test("Reassembly in every order of 4 pieces, with duplicates ignored")
    func allOrders() throws {
        let payload = WireFixtures.payload(35)
        let all = try pieces(payload, maxChunk: 10)
        #expect(all.count == 4)
        func permutations(_ items: [Int]) -> [[Int]] {
            guard items.count > 1 else { return [items] }
            return items.indices.flatMap { i in
                var rest = items
                let head = rest.remove(at: i)
                return permutations(rest).map { [head] + $0 }
            }
        }
        for order in permutations([0, 1, 2, 3]) {
            var reassembler = Reassembler()
            var result: Reassembler.Message?
            for (step, index) in order.enumerated() {
                let (header, chunk) = all[index]
                let outcome = reassembler.accept(header: header, chunk: chunk, now: .seconds(step))
                if step < 3 {
                    #expect(outcome == .pending)
                    #expect(reassembler.accept(header: header, chunk: chunk, now: .seconds(step)) == .duplicate)
                } else if case .complete(let message) = outcome {
                    result = message
                }
            }
            let message = try #require(result, "order \(order)")
            #expect(message.payload == payload)
            #expect(message.header.packetID == 100)
            #expect(message.header.fragment == nil)
            #expect(reassembler.counters.duplicates == 3)
            #expect(reassembler.partialCount == 0)
            #expect(reassembler.bufferedBytes == 0)
        }
    }

    @Test("A missing piece times out after 120 s and the partial is dropped and counted")
    func missingPieceTimesOut() throws {
        let all = try pieces(WireFixtures.payload(30), maxChunk: 10)
        var reassembler = Reassembler()
        #expect(reassembler.accept(header: all[0].0, chunk: all[0].1, now: .seconds(10)) == .pending)
        #expect(reassembler.accept(header: all[2].0, chunk: all[2].1, now: .seconds(20)) == .pending)
        #expect(reassembler.expire(now: .seconds(129)) == 0)
        #expect(reassembler.expire(now: .seconds(130)) == 1)
        #expect(reassembler.counters.timedOut == 1)
        #expect(reassembler.partialCount == 0)
        #expect(reassembler.bufferedBytes == 0)
        // The late piece starts a new partial rather than completing anything.
        #expect(reassembler.accept(header: all[1].0, chunk: all[1].1, now: .seconds(131)) == .pending)
    }

    @Test("Memory bound: partials and bytes stay under the limits; the oldest is evicted and counted")
    func memoryBound() throws {
        var reassembler = Reassembler(limits: .init(maxPartials: 4, maxBytes: 100, timeout: .seconds(120)))
        var generator = SeededGenerator(seed: 7)
        for origin in UInt32(1)...200 {
            let all = try pieces(WireFixtures.payload(60), maxChunk: 20, origin: origin)
            for (header, chunk) in all.shuffled(using: &generator).prefix(2) {
                _ = reassembler.accept(header: header, chunk: chunk, now: .seconds(Int(origin)))
                #expect(reassembler.partialCount <= 4)
                #expect(reassembler.bufferedBytes <= 100)
            }
        }
        #expect(reassembler.counters.evicted > 0)
        // The newest partial is still there and completes.
        let last = try pieces(WireFixtures.payload(60), maxChunk: 20, origin: 500)
        _ = reassembler.accept(header: last[0].0, chunk: last[0].1, now: .seconds(300))
        _ = reassembler.accept(header: last[1].0, chunk: last[1].1, now: .seconds(300))
        guard case .complete(let message) = reassembler.accept(header: last[2].0, chunk: last[2].1, now: .seconds(300))
        else {
            Issue.record("the newest payload did not complete")
            return
        }
        #expect(message.payload == WireFixtures.payload(60))
        #expect(message.header.origin == NodeID(500))
    }

    @Test("Unfragmented, inconsistent and oversized pieces are rejected and counted")
    func rejections() throws {
        var reassembler = Reassembler(limits: .init(maxPartials: 4, maxBytes: 50))
        #expect(reassembler.accept(header: WireFixtures.header(), chunk: [1], now: .zero) == .rejected)
        let all = try pieces(WireFixtures.payload(30), maxChunk: 10)
        #expect(reassembler.accept(header: all[0].0, chunk: all[0].1, now: .zero) == .pending)
        var wrongCount = all[1].0
        wrongCount.fragment = .init(index: 1, count: 4)
        #expect(reassembler.accept(header: wrongCount, chunk: all[1].1, now: .zero) == .rejected)
        var bigger = WireFixtures.header(fragment: .init(index: 0, count: 2))
        bigger.origin = NodeID(99)
        #expect(reassembler.accept(header: bigger, chunk: WireFixtures.payload(51), now: .zero) == .rejected)
        #expect(reassembler.counters.rejected == 3)
    }
}

@Suite("Sealing whole payloads into fragments")
struct WirePayloadTests {
    @Test("sealPayload → open → Reassembler gives the payload back at sizes around every boundary")
    func endToEnd() throws {
        let sealer = try WireFixtures.sealer()
        let alice = BoxKeyPair()
        let bob = BoxKeyPair()
        let key = try sealer.originKey(mine: alice, peerPublicKey: bob.publicKeyBytes)
        var ring = PeerKeyring()
        ring.learn(nodeID: alice.nodeID, publicKey: alice.publicKeyBytes)
        var base = WireFixtures.header(kind: .directed, destination: bob.nodeID, packetID: 7000)
        base.origin = alice.nodeID
        for size in [0, 1, 188, 189, 190, 376, 377, 1000, 3008] {
            let payload = WireFixtures.payload(size, seed: 3)
            let frames = try sealer.sealPayload(payload, base: base, originKey: key)
            var reassembler = Reassembler()
            var result: [UInt8]?
            for frame in frames.reversed() {
                #expect(frame.count <= MeshFrame.maxBytes)
                #expect(sealer.verifyOrigin(frame, me: bob, keyring: ring) == .verified)
                let (header, plaintext) = try sealer.open(frame)
                if header.fragment == nil {
                    result = plaintext
                } else if case .complete(let message) = reassembler.accept(header: header, chunk: plaintext, now: .zero) {
                    result = message.payload
                    #expect(message.header.packetID == 7000)
                }
            }
            #expect(result == payload, "size \(size)")
            #expect(frames.count == (size <= 189 ? 1 : (size + 187) / 188))
        }
        #expect(throws: MeshWireError.payloadTooLarge(size: 3009, maxChunk: 188)) {
            try sealer.sealPayload(WireFixtures.payload(3009), base: base, originKey: key)
        }
        // Broadcasts: 201 B fit one frame, 3 200 B is the most.
        #expect(try sealer.sealPayload(WireFixtures.payload(201), base: WireFixtures.header()).count == 1)
        #expect(try sealer.sealPayload(WireFixtures.payload(3200), base: WireFixtures.header()).count == 16)
    }
}
