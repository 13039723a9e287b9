import DriftMesh
import Foundation

/// A frame the ``MeshStore`` holds for store-and-forward: the sealed bytes as heard or sent.
public struct MeshHeldPacket: Hashable, Sendable {
    public var key: PacketKey
    public var kind: FrameKind
    /// The box a directed frame is for; `nil` for broadcasts.
    public var destination: NodeID?
    /// The sealed frame bytes.
    public var frame: [UInt8]
    /// Higher is more urgent (the airtime queue's order).
    public var priority: Int
    public var receivedAt: Date
    public var expiresAt: Date
    /// This box originated the packet (evicted last).
    public var fromMe: Bool

    public init(key: PacketKey, kind: FrameKind, destination: NodeID?, frame: [UInt8], priority: Int,
                receivedAt: Date, expiresAt: Date, fromMe: Bool) {
        self.key = key
        self.kind = kind
        self.destination = destination
        self.frame = frame
        self.priority = priority
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
        self.fromMe = fromMe
    }
}

/// What ``MeshStore/hold(_:kind:destination:frame:priority:receivedAt:expiresAt:fromMe:)`` did.
public struct MeshHoldOutcome: Hashable, Sendable {
    /// The frame is held now (`false`: it was already held, or it was itself evicted at once
    /// because everything else outlives it).
    public var stored: Bool
    /// Frames evicted to stay within the bounds (possibly including this one).
    public var evicted: [PacketKey]

    public init(stored: Bool, evicted: [PacketKey]) {
        self.stored = stored
        self.evicted = evicted
    }
}
