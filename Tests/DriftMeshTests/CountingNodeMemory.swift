import DriftMesh
import Foundation

/// ``InMemoryNodeMemory`` that counts the outbox looks and housekeeping passes a machine makes
/// (each a database transaction or two in the daemon's `MeshStore`), for the tests of what an
/// idle box does.
struct CountingNodeMemory: MeshNodeMemory {
    var base = InMemoryNodeMemory()
    /// `dueOutgoing` calls (outbox looks) and `forgetExpired` calls (housekeeping passes).
    var dueLooks = 0
    var housekeepings = 0

    mutating func markSeen(_ key: PacketKey, expiresAt: Date, now: Date) throws -> Bool {
        try base.markSeen(key, expiresAt: expiresAt, now: now)
    }
    mutating func nextPacketIDs(count: Int) throws -> UInt32 { try base.nextPacketIDs(count: count) }
    mutating func storeOutgoing(_ id: PacketKey, destination: NodeID?, frames: [[UInt8]], priority: Int,
                                now: Date, expiresAt: Date) throws {
        try base.storeOutgoing(id, destination: destination, frames: frames, priority: priority, now: now, expiresAt: expiresAt)
    }
    mutating func dueOutgoing(now: Date) throws -> [MeshDueMessage] {
        dueLooks += 1
        return try base.dueOutgoing(now: now)
    }
    mutating func markSent(_ id: PacketKey, now: Date) throws -> Bool { try base.markSent(id, now: now) }
    mutating func recordOutgoingAttempt(_ id: PacketKey, now: Date, jitterShare: Double) throws {
        try base.recordOutgoingAttempt(id, now: now, jitterShare: jitterShare)
    }
    mutating func markDelivered(_ id: PacketKey) throws -> Bool { try base.markDelivered(id) }
    func waitingOutgoingCount() throws -> Int { try base.waitingOutgoingCount() }
    mutating func holdHeard(_ key: PacketKey, kind: FrameKind, destination: NodeID?, frame: [UInt8],
                            receivedAt: Date, expiresAt: Date) throws {
        try base.holdHeard(key, kind: kind, destination: destination, frame: frame, receivedAt: receivedAt, expiresAt: expiresAt)
    }
    func heldKeys(limit: Int) throws -> [PacketKey] { try base.heldKeys(limit: limit) }
    func heldReceipts(since: Date, limit: Int) throws -> [MeshHeldReceipt] { try base.heldReceipts(since: since, limit: limit) }
    func heldFrames(for keys: [PacketKey]) throws -> [MeshHeldFrame] { try base.heldFrames(for: keys) }
    func rememberedPeers() throws -> [MeshRememberedPeer] { try base.rememberedPeers() }
    mutating func rememberHello(from node: NodeID, publicKey: [UInt8], at now: Date, link: LinkQuality, hops: Int) throws {
        try base.rememberHello(from: node, publicKey: publicKey, at: now, link: link, hops: hops)
    }
    mutating func forgetExpired(now: Date) throws {
        housekeepings += 1
        try base.forgetExpired(now: now)
    }
}
