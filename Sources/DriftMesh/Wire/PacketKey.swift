/// What makes a packet unique on the mesh: its origin and the origin's packet id.
///
/// Duplicate suppression (the seen-set), replay rejection, relay cancellation,
/// acknowledgements and the AEAD nonce are all keyed by it. An origin never reuses
/// a packet id (ids come from a persisted counter).
public struct PacketKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let origin: NodeID
    public let packetID: UInt32

    public init(origin: NodeID, packetID: UInt32) {
        self.origin = origin
        self.packetID = packetID
    }

    public var description: String { "\(origin)#\(packetID)" }

    /// The key of piece `index` of the message whose first piece this is: a message's pieces
    /// take consecutive packet ids (``MeshHeader/messageKey`` goes the other way).
    public func piece(_ index: Int) -> PacketKey {
        PacketKey(origin: origin, packetID: packetID &+ UInt32(truncatingIfNeeded: index))
    }

    public static func < (lhs: PacketKey, rhs: PacketKey) -> Bool {
        (lhs.origin.rawValue, lhs.packetID) < (rhs.origin.rawValue, rhs.packetID)
    }
}
