import DriftMesh
import Foundation
import GRDB

/// The daemon's node memory: ``MeshNodeMachine`` reads and writes its seen-set, outbox, held
/// frames, packet ids and peers here, one transaction per call.
extension MeshStore: MeshNodeMemory {
    public func storeOutgoing(_ id: PacketKey, destination: NodeID?, frames: [[UInt8]], priority: Int,
                              now: Date, expiresAt: Date) throws {
        try enqueue(id, destination: destination, frames: frames, priority: priority, now: now, expiresAt: expiresAt)
    }

    public func dueOutgoing(now: Date) throws -> [MeshDueMessage] {
        try due(now: now).map { MeshDueMessage(id: $0.id, destination: $0.destination, priority: $0.priority, frames: $0.frames) }
    }

    public func recordOutgoingAttempt(_ id: PacketKey, now: Date, jitterShare: Double) throws {
        try recordAttempt(id, now: now, jitterShare: jitterShare)
    }

    public func waitingOutgoingCount() throws -> Int {
        try counts().queued
    }

    public func holdHeard(_ key: PacketKey, kind: FrameKind, destination: NodeID?, frame: [UInt8],
                          receivedAt: Date, expiresAt: Date) throws {
        try hold(key, kind: kind, destination: destination, frame: frame, priority: TransmitPriority.normal.rawValue,
                 receivedAt: receivedAt, expiresAt: expiresAt, fromMe: false)
    }

    public func heldKeys(limit: Int) throws -> [PacketKey] {
        try heldKeys(since: .distantPast, limit: limit)
    }

    public func heldReceipts(since: Date, limit: Int) throws -> [MeshHeldReceipt] {
        try receipts(since: since, limit: limit)
    }

    public func heldFrames(for keys: [PacketKey]) throws -> [MeshHeldFrame] {
        try frames(for: keys).map { MeshHeldFrame(key: $0.key, frame: $0.frame) }
    }

    public func rememberedPeers() throws -> [MeshRememberedPeer] {
        try peers().map { MeshRememberedPeer(node: $0.node, publicKey: $0.publicKey) }
    }

    public func rememberHello(from node: NodeID, publicKey: [UInt8], at now: Date, link: LinkQuality, hops: Int) throws {
        _ = try rememberPeer(node, publicKey: publicKey, at: now, link: link, hops: hops)
    }

    /// Seen-set entries, held frames and outbox messages past their time, in one transaction
    /// (the node's housekeeping each minute: one lock and one commit, not three, beside the
    /// other services that look around at the same instant).
    public func forgetExpired(now: Date) throws {
        try database.writer.write { db in
            _ = try Self.pruneSeen(db, now: now)
            _ = try Self.dropExpired(db, now: now)
            _ = try Self.prune(db, now: now)
        }
    }
}
