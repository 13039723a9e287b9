import DriftMesh
import TestSupport
import Testing

@Suite("Hostile bytes into the mesh decoder, open, relay and reassembler")
struct WireHostileInputTests {
    // Both loops run on a thread of their own (`runBlocking`): seconds of CPU on the
    // cooperative pool would stall the timers of every other test running alongside.

    @Test("100 000 random byte strings: typed errors only, never a crash")
    func randomBytes() async throws {
        let (opened, decoded, maxBuffered) = try await runCPUBound {
            let sealer = try WireFixtures.sealer()
            let me = BoxKeyPair()
            var generator = SeededGenerator(seed: 0xD21F7)
            var reassembler = Reassembler(limits: .init(maxPartials: 8, maxBytes: 2048))
            var opened = 0
            var decoded = 0
            var maxBuffered = 0
            for round in 0..<100_000 {
                let length = Int.random(in: 0...260, using: &generator)
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                // Half the inputs look like ours (version 1, a valid kind, our hint) to reach deeper code.
                if round.isMultiple(of: 2), bytes.count >= 3 {
                    bytes[0] = 0x10 | UInt8.random(in: 0...5, using: &generator)
                    bytes[1] = sealer.networkHint
                    bytes[2] &= 0xF0
                }
                if let wire = try? MeshFrameCodec.decodeHeader(bytes) {
                    decoded += 1
                    _ = reassembler.accept(header: wire.header, chunk: Array(bytes.dropFirst(wire.length)),
                                           now: .seconds(round))
                }
                _ = try? MeshFrameCodec.relay(bytes, by: NodeID(1))
                if (try? sealer.open(bytes)) != nil { opened += 1 }
                _ = sealer.verifyOrigin(bytes, me: me, keyring: PeerKeyring())
                maxBuffered = max(maxBuffered, reassembler.bufferedBytes)
            }
            return (opened, decoded, maxBuffered)
        }
        #expect(maxBuffered <= 2048)
        #expect(opened == 0)
        #expect(decoded > 1000)  // the generator does reach past the header checks
    }

    @Test("Random mutations of a valid frame never open unless only relay-owned bits changed")
    func mutations() async throws {
        let openedWithAuthenticatedChange = try await runCPUBound {
            let sealer = try WireFixtures.sealer()
            let frame = try sealer.seal(
                header: WireFixtures.header(kind: .directed, destination: NodeID(3), fragment: .init(index: 2, count: 5)),
                plaintext: WireFixtures.payload(100))
            var generator = SeededGenerator(seed: 42)
            var bad = 0
            for _ in 0..<20_000 {
                var bytes = frame
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let position = Int.random(in: 0..<bytes.count, using: &generator)
                    bytes[position] = UInt8.random(in: 0...255, using: &generator)
                }
                if Bool.random(using: &generator) { bytes.removeLast(Int.random(in: 0...20, using: &generator)) }
                var relayOwnedOnly = bytes.count == frame.count
                for i in bytes.indices where bytes[i] != frame[i] && relayOwnedOnly {
                    relayOwnedOnly = (i == 3 && bytes[i] & 0xF0 == frame[i] & 0xF0) || i == 4
                }
                if (try? sealer.open(bytes)) != nil, !relayOwnedOnly { bad += 1 }
            }
            return bad
        }
        #expect(openedWithAuthenticatedChange == 0)
    }
}
