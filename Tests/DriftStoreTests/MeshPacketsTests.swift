import DriftMesh
import DriftStore
import Foundation
import TestSupport
import Testing

@Suite("Mesh held packets")
struct MeshPacketsTests {
    typealias F = MeshFixtures

    @discardableResult
    private func hold(_ store: MeshStore, _ key: PacketKey, size: Int = 40, received: TimeInterval = 0,
                      expires: TimeInterval = 3_600, fromMe: Bool = false, kind: FrameKind = .broadcast,
                      destination: NodeID? = nil) throws -> MeshHoldOutcome {
        try store.hold(key, kind: kind, destination: destination, frame: F.frame(size, fill: UInt8(key.packetID & 0xFF)),
                       priority: 1, receivedAt: F.at(received), expiresAt: F.at(expires), fromMe: fromMe)
    }

    @Test("hold, then frames(for:) returns the exact bytes and fields, in the order asked")
    func roundTrip() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let directed = F.key(F.alice, 10)
        let frame: [UInt8] = (0..<200).map { UInt8($0) }
        let outcome = try disk.store.hold(directed, kind: .directed, destination: F.bob, frame: frame, priority: 3,
                                          receivedAt: F.at(1.5), expiresAt: F.at(600), fromMe: false)
        #expect(outcome == MeshHoldOutcome(stored: true, evicted: []))
        try hold(disk.store, F.key(F.me, UInt32.max), fromMe: true)
        let packets = try disk.store.frames(for: [F.key(F.me, UInt32.max), F.key(F.bob, 1), directed])
        #expect(packets.map(\.key) == [F.key(F.me, UInt32.max), directed])
        #expect(packets[1] == MeshHeldPacket(key: directed, kind: .directed, destination: F.bob, frame: frame, priority: 3,
                                             receivedAt: F.at(1.5), expiresAt: F.at(600), fromMe: false))
        #expect(packets[0].fromMe && packets[0].destination == nil && packets[0].kind == .broadcast)
    }

    @Test("holding the same key twice keeps the first copy")
    func duplicate() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        try hold(disk.store, F.key(F.alice, 1), size: 10)
        let again = try hold(disk.store, F.key(F.alice, 1), size: 20)
        #expect(again == MeshHoldOutcome(stored: false, evicted: []))
        #expect(try disk.store.frames(for: [F.key(F.alice, 1)]).first?.frame.count == 10)
        #expect(try disk.store.heldUsage() == (packets: 1, bytes: 10))
    }

    @Test("heldKeys: received since, most recent first, limited")
    func heldKeys() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        for index in UInt32(0)..<6 {
            try hold(disk.store, F.key(F.alice, index), received: TimeInterval(index) * 10)
        }
        #expect(try disk.store.heldKeys(since: F.at(20), limit: 10) == [5, 4, 3, 2].map { F.key(F.alice, $0) })
        #expect(try disk.store.heldKeys(since: F.at(0), limit: 2) == [5, 4].map { F.key(F.alice, $0) })
        #expect(try disk.store.heldKeys(since: F.at(0), limit: 0).isEmpty)
        #expect(try disk.store.heldKeys(since: F.at(51), limit: 10).isEmpty)
        // With when each came (the node's memory of what it got lately), across a reopen.
        let reopened = try disk.reopen()
        #expect(try reopened.heldReceipts(since: F.at(30), limit: 2) == [5, 4].map { MeshHeldReceipt(key: F.key(F.alice, $0), receivedAt: F.at(TimeInterval($0) * 10)) })
        #expect(try reopened.heldReceipts(since: F.at(30), limit: 10).map(\.key) == [5, 4, 3].map { F.key(F.alice, $0) })
        #expect(try reopened.heldReceipts(since: F.at(0), limit: 0).isEmpty)
    }

    @Test("dropExpired deletes frames expired at or before now; held frames survive a reopen")
    func expiry() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        try hold(disk.store, F.key(F.alice, 1), expires: 100)
        try hold(disk.store, F.key(F.alice, 2), expires: 200)
        try hold(disk.store, F.key(F.bob, 3), expires: 300)
        #expect(try disk.store.dropExpired(now: F.at(99)) == 0)
        #expect(try disk.store.dropExpired(now: F.at(200)) == 2)
        let reopened = try disk.reopen()
        #expect(try reopened.heldKeys(since: F.at(0), limit: 10) == [F.key(F.bob, 3)])
    }

    @Test("forget deletes the named packets of one origin only")
    func forget() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        for id in UInt32(1)...4 { try hold(disk.store, F.key(F.alice, id)) }
        try hold(disk.store, F.key(F.bob, 2))
        #expect(try disk.store.forget(origin: F.alice, packetIDs: [2, 3, 9]) == 2)
        #expect(try disk.store.forget(origin: F.alice, packetIDs: []) == 0)
        #expect(Set(try disk.store.heldKeys(since: F.at(0), limit: 10)) == [F.key(F.alice, 1), F.key(F.alice, 4), F.key(F.bob, 2)])
    }

    @Test("row bound: evicts others' soonest-expiring frames first, own frames last; counted")
    func rowBound() throws {
        let disk = try MeshDisk(limits: MeshStoreLimits(maxHeldPackets: 3))
        defer { disk.directory.remove() }
        try hold(disk.store, F.key(F.me, 1), expires: 10, fromMe: true)
        try hold(disk.store, F.key(F.alice, 1), expires: 500)
        try hold(disk.store, F.key(F.alice, 2), expires: 300)
        let outcome = try hold(disk.store, F.key(F.bob, 1), expires: 400)
        #expect(outcome == MeshHoldOutcome(stored: true, evicted: [F.key(F.alice, 2)]))
        // The newcomer expiring soonest of the others is itself evicted.
        let early = try hold(disk.store, F.key(F.bob, 2), expires: 50)
        #expect(early == MeshHoldOutcome(stored: false, evicted: [F.key(F.bob, 2)]))
        #expect(Set(try disk.store.heldKeys(since: F.at(0), limit: 10)) == [F.key(F.me, 1), F.key(F.alice, 1), F.key(F.bob, 1)])
        #expect(disk.store.evictedCount == 2)
    }

    @Test("own frames go when nothing else is left")
    func ownEvictedLast() throws {
        let disk = try MeshDisk(limits: MeshStoreLimits(maxHeldPackets: 2))
        defer { disk.directory.remove() }
        try hold(disk.store, F.key(F.me, 1), expires: 100, fromMe: true)
        try hold(disk.store, F.key(F.me, 2), expires: 200, fromMe: true)
        let outcome = try hold(disk.store, F.key(F.me, 3), expires: 300, fromMe: true)
        #expect(outcome.evicted == [F.key(F.me, 1)])
    }

    @Test("byte bound: evicts until the total fits")
    func byteBound() throws {
        let disk = try MeshDisk(limits: MeshStoreLimits(maxHeldBytes: 500))
        defer { disk.directory.remove() }
        try hold(disk.store, F.key(F.alice, 1), size: 200, expires: 100)
        try hold(disk.store, F.key(F.alice, 2), size: 200, expires: 200)
        let outcome = try hold(disk.store, F.key(F.bob, 1), size: 250, expires: 300)
        #expect(outcome == MeshHoldOutcome(stored: true, evicted: [F.key(F.alice, 1)]))
        #expect(try disk.store.heldUsage() == (packets: 2, bytes: 450))
    }

    @Test("bad frames are refused with a typed error, nothing stored")
    func badFrames() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let key = F.key(F.alice, 1)
        #expect(throws: MeshStoreError.emptyFrame(key)) { try hold(disk.store, key, size: 0) }
        #expect(throws: MeshStoreError.frameTooLarge(key, bytes: 256, limit: 255)) { try hold(disk.store, key, size: 256) }
        #expect(try disk.store.heldUsage() == (packets: 0, bytes: 0))
    }
}
