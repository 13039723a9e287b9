import DriftMesh
import Testing

@Suite("Box keys, peer keyring (TOFU) and origin authentication")
struct KeysTests {
    @Test("A key pair survives its raw bytes; node id is the first 4 bytes of SHA-256(public key)")
    func rawRoundTrip() throws {
        let pair = BoxKeyPair()
        let restored = try BoxKeyPair(rawPrivateKey: pair.rawPrivateKey)
        #expect(restored.publicKeyBytes == pair.publicKeyBytes)
        #expect(restored.nodeID == pair.nodeID)
        #expect(pair.publicKeyBytes.count == 32)
        #expect(pair.rawPrivateKey.count == 32)
        #expect(NodeID(publicKey: pair.publicKeyBytes) == pair.nodeID)
        #expect(throws: MeshWireError.self) { try BoxKeyPair(rawPrivateKey: [1, 2, 3]) }
    }

    @Test("NodeID(publicKey:) known answer: SHA-256 of 32 zero bytes starts 66 68 7a ad")
    func nodeIDKnownAnswer() {
        #expect(NodeID(publicKey: [UInt8](repeating: 0, count: 32)) == NodeID(0x6668_7AAD))
    }

    @Test("Keyring: first key wins, a different later key is refused and counted, wrong hash refused")
    func trustOnFirstUse() {
        var ring = PeerKeyring()
        let a = BoxKeyPair()
        let impostor = BoxKeyPair()
        #expect(ring.learn(nodeID: a.nodeID, publicKey: a.publicKeyBytes) == .learned)
        #expect(ring.learn(nodeID: a.nodeID, publicKey: a.publicKeyBytes) == .known)
        #expect(ring.learn(nodeID: a.nodeID, publicKey: impostor.publicKeyBytes) == .mismatchedID)
        #expect(ring.learn(nodeID: a.nodeID, publicKey: [1, 2]) == .mismatchedID)
        #expect(ring.counters.mismatchedID == 2)
        #expect(ring.publicKey(for: a.nodeID) == a.publicKeyBytes)
        #expect(ring.publicKey(for: impostor.nodeID) == nil)
        ring.forget(a.nodeID)
        #expect(ring.count == 0)
    }

    @Test("Keyring: a second key with the same node id (a found 32-bit hash collision) is a refused, counted conflict")
    func conflict() {
        func bytes(_ hex: String) -> [UInt8] {
            var out: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                out.append(UInt8(hex[index..<next], radix: 16)!)
                index = next
            }
            return out
        }
        // Two 32-byte keys whose SHA-256 both start d8 d0 e8 12 (birthday search, seed 7).
        let first = bytes("8d45125ed714f26f1ebc06dfda1e458a38902fbb1d4ed1de6dc44e9e6d9a7557")
        let second = bytes("727e988bfc03800c02148dbdc4929a5504964eb48610bfeb72be901df3faa4ee")
        let id = NodeID(0xD8D0_E812)
        #expect(NodeID(publicKey: first) == id)
        #expect(NodeID(publicKey: second) == id)
        var ring = PeerKeyring()
        #expect(ring.learn(nodeID: id, publicKey: first) == .learned)
        #expect(ring.learn(nodeID: id, publicKey: second) == .conflict)
        #expect(ring.counters.conflicts == 1)
        #expect(ring.publicKey(for: id) == first)
    }

    @Test("Keyring: bounded; a new peer beyond capacity is refused and counted")
    func capacity() {
        var ring = PeerKeyring(capacity: 1)
        let a = BoxKeyPair()
        let b = BoxKeyPair()
        #expect(ring.learn(nodeID: a.nodeID, publicKey: a.publicKeyBytes) == .learned)
        #expect(ring.learn(nodeID: b.nodeID, publicKey: b.publicKeyBytes) == .full)
        #expect(ring.counters.full == 1)
        #expect(ring.count == 1)
    }

    @Test("Origin tag: verified by the destination, forged when altered or made with another key, unknown without a hello")
    func originAuthentication() throws {
        let sealer = try WireFixtures.sealer()
        let alice = BoxKeyPair()
        let bob = BoxKeyPair()
        let mallory = BoxKeyPair()
        var header = WireFixtures.header(kind: .directed, destination: bob.nodeID)
        header.origin = alice.nodeID
        header.relayer = alice.nodeID.shortID
        let key = try sealer.originKey(mine: alice, peerPublicKey: bob.publicKeyBytes)
        // Both sides derive the same pairwise key.
        let bobsKey = try sealer.originKey(mine: bob, peerPublicKey: alice.publicKeyBytes)
        let frame = try sealer.seal(header: header, plaintext: [1, 2, 3], originKey: key)
        #expect(try sealer.seal(header: header, plaintext: [1, 2, 3], originKey: bobsKey) == frame)
        #expect(try sealer.open(frame).plaintext == [1, 2, 3])

        var bobsRing = PeerKeyring()
        #expect(sealer.verifyOrigin(frame, me: bob, keyring: bobsRing) == .unknownOrigin)
        bobsRing.learn(nodeID: alice.nodeID, publicKey: alice.publicKeyBytes)
        #expect(sealer.verifyOrigin(frame, me: bob, keyring: bobsRing) == .verified)
        // Relays may rewrite hops and relayer: still verified.
        let relayed = try MeshFrameCodec.relay(frame, by: mallory.nodeID)
        #expect(sealer.verifyOrigin(relayed, me: bob, keyring: bobsRing) == .verified)

        // Mallory holds the network key and claims to be Alice.
        let malloryKey = try sealer.originKey(mine: mallory, peerPublicKey: bob.publicKeyBytes)
        let forged = try sealer.seal(header: header, plaintext: [6, 6, 6], originKey: malloryKey)
        #expect(try sealer.open(forged).plaintext == [6, 6, 6])
        #expect(sealer.verifyOrigin(forged, me: bob, keyring: bobsRing) == .forged)
        // A flipped bit in the origin tag itself.
        var altered = frame
        altered[altered.count - 1] ^= 0x01
        #expect(sealer.verifyOrigin(altered, me: bob, keyring: bobsRing) == .forged)
        // Not tagged; not for me.
        let plain = try sealer.seal(header: header, plaintext: [1])
        #expect(sealer.verifyOrigin(plain, me: bob, keyring: bobsRing) == .untagged)
        #expect(sealer.verifyOrigin(frame, me: mallory, keyring: bobsRing) == .notForMe)
        // Stripping the tag and clearing the flag breaks the AEAD (the flag is authenticated).
        var stripped = Array(frame.dropLast(MeshFrameCodec.originTagBytes))
        stripped[2] &= ~0x10
        #expect(throws: MeshWireError.authenticationFailed) { try sealer.open(stripped) }
    }
}
