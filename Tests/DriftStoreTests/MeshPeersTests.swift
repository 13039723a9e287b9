import DriftMesh
import DriftStore
import Foundation
import TestSupport
import Testing

@Suite("Mesh peers (TOFU keyring)")
struct MeshPeersTests {
    typealias F = MeshFixtures

    @Test("first key wins; a matching key updates last seen, signal and hops")
    func firstKeyWins() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let key = F.publicKey(1)
        #expect(try disk.store.rememberPeer(F.alice, publicKey: key, at: F.start) == .new)
        #expect(try disk.store.rememberPeer(F.alice, publicKey: key, at: F.at(60), link: LinkQuality(rssi: -97.5, snr: -4.25), hops: 2) == .known)
        let peer = try #require(try disk.store.peer(F.alice))
        #expect(peer == MeshPeer(node: F.alice, publicKey: key, firstSeen: F.start, lastSeen: F.at(60),
                                 lastLink: LinkQuality(rssi: -97.5, snr: -4.25), hops: 2))
    }

    @Test("a different key for a known node is refused and changes nothing")
    func mismatch() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let key = F.publicKey(1)
        try disk.store.rememberPeer(F.alice, publicKey: key, at: F.start, hops: 1)
        #expect(try disk.store.rememberPeer(F.alice, publicKey: F.publicKey(2), at: F.at(60), hops: 0) == .keyMismatch(pinned: key))
        let peer = try #require(try disk.store.peer(F.alice))
        #expect(peer.publicKey == key && peer.lastSeen == F.start && peer.hops == 1)
    }

    @Test("the keyring survives a reopen")
    func persists() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        try disk.store.rememberPeer(F.bob, publicKey: F.publicKey(3), at: F.start)
        try disk.store.rememberPeer(F.alice, publicKey: F.publicKey(4), at: F.at(1))
        let reopened = try disk.reopen()
        #expect(try reopened.peers().map(\.node) == [F.alice, F.bob])
        #expect(try reopened.rememberPeer(F.bob, publicKey: F.publicKey(9), at: F.at(2)) == .keyMismatch(pinned: F.publicKey(3)))
        #expect(try reopened.peer(NodeID(12345)) == nil)
    }

    @Test("an older sighting does not move last seen back")
    func lastSeenMonotonic() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        try disk.store.rememberPeer(F.alice, publicKey: F.publicKey(1), at: F.at(100))
        try disk.store.rememberPeer(F.alice, publicKey: F.publicKey(1), at: F.at(50))
        #expect(try disk.store.peer(F.alice)?.lastSeen == F.at(100))
    }

    @Test("bad keys and the broadcast address are refused")
    func invalid() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        #expect(throws: MeshStoreError.invalidPublicKey(F.alice, length: 31)) {
            try disk.store.rememberPeer(F.alice, publicKey: [UInt8](repeating: 1, count: 31), at: F.start)
        }
        #expect(throws: MeshStoreError.broadcastIsNoPeer) {
            try disk.store.rememberPeer(.broadcast, publicKey: F.publicKey(1), at: F.start)
        }
        #expect(try disk.store.peers().isEmpty)
    }
}
