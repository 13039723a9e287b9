import DriftMesh
import Foundation

/// A message the mesh delivered to this box.
public struct MeshDelivery: Sendable, Equatable {
    /// The packet key of its first frame.
    public var key: PacketKey
    public var origin: NodeID
    /// `nil` for a broadcast.
    public var destination: NodeID?
    /// Relays between the origin and this box.
    public var hops: Int
    public var message: MeshMessage
    public var receivedAt: Date
    /// Frames that carried it (1 unless fragmented); with ``key`` they name its held frames.
    public var frames: Int = 1
}
