import DriftMesh
import Foundation

/// Where an outbox message stands.
public enum MeshOutboxState: String, Sendable, Hashable, CaseIterable {
    /// Waiting for its (next) transmission.
    case queued
    /// A broadcast after its first transmission (reconciliation carries it on).
    case sent
    /// A directed message whose destination acknowledged it; its frames are deleted.
    case delivered
    /// No acknowledgement after every retry (kept until its expiry), or given up.
    case failed
}

/// A message this box originates, as the outbox holds it.
public struct MeshOutboxEntry: Hashable, Sendable {
    /// The message id: the origin (this box) and the first fragment's packet id.
    public var id: PacketKey
    /// The box a directed message is for; `nil` for a broadcast.
    public var destination: NodeID?
    public var fragmentCount: Int
    /// Higher is more urgent.
    public var priority: Int
    public var state: MeshOutboxState
    /// Transmissions so far.
    public var attempts: Int
    /// When the message is due (next transmission, or the end of the wait for its acknowledgement).
    public var nextAttemptAt: Date
    public var createdAt: Date
    public var expiresAt: Date
    public var lastError: String?
    /// The sealed frames, fragment 0 first (packet ids `id.packetID + i`); empty once delivered.
    public var frames: [[UInt8]]

    /// The frames' packet keys (consecutive packet ids from the message id).
    public var packetKeys: [PacketKey] {
        (0..<fragmentCount).map { PacketKey(origin: id.origin, packetID: id.packetID &+ UInt32($0)) }
    }

    /// A broadcast (no destination).
    public var isBroadcast: Bool { destination == nil }
}

/// How many outbox messages are in each state (status, metrics).
public struct MeshOutboxCounts: Hashable, Sendable {
    public var queued = 0
    public var sent = 0
    public var delivered = 0
    public var failed = 0

    public init(queued: Int = 0, sent: Int = 0, delivered: Int = 0, failed: Int = 0) {
        self.queued = queued
        self.sent = sent
        self.delivered = delivered
        self.failed = failed
    }

    public subscript(state: MeshOutboxState) -> Int {
        switch state {
        case .queued: queued
        case .sent: sent
        case .delivered: delivered
        case .failed: failed
        }
    }
}
