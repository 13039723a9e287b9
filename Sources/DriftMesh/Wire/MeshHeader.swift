/// The routing-relevant fields of a mesh frame, decoded.
///
/// The wire codec (`docs/wire-format.md`) owns the byte layout; the router and the
/// store only see this struct. `hopsTaken` and `relayer` change at every relay and are
/// not covered by the frame's authentication tag (re-sealing would reuse the AEAD
/// nonce); everything else is.
public struct MeshHeader: Hashable, Sendable {
    public var kind: FrameKind
    /// The box that made the packet.
    public var origin: NodeID
    /// The origin's packet id; with `origin` it names the packet mesh-wide.
    public var packetID: UInt32
    /// The one box a directed frame is for; `nil` for broadcasts.
    public var destination: NodeID?
    /// Hop limit chosen by the origin (0–7): relays stop when `hopsTaken == hopStart`.
    public var hopStart: UInt8
    /// Relays so far (0 when heard from the origin itself).
    public var hopsTaken: UInt8
    /// The origin asks for an end-to-end acknowledgement.
    public var wantsAck: Bool
    /// Short id (low byte of the `NodeID`) of the box that transmitted this copy.
    public var relayer: UInt8
    /// Fragment position when the payload was split; `nil` for a whole payload.
    /// Fragments of one payload take consecutive packet ids: fragment `i` has
    /// `packetID = first + i`, so every frame keeps its own unique `PacketKey`.
    public var fragment: Fragment?
    /// End of the packet's life, in whole minutes since 1970-01-01 UTC, set by the origin
    /// and authenticated. Boxes drop expired frames (as replays, when their clock is
    /// trustworthy) and keep a packet in the seen-set at least until then.
    public var expiresAtMinute: UInt32

    /// One piece of a payload that did not fit one frame.
    public struct Fragment: Hashable, Sendable {
        /// 0-based position.
        public var index: UInt8
        /// Number of pieces (2…).
        public var count: UInt8

        public init(index: UInt8, count: UInt8) {
            self.index = index
            self.count = count
        }
    }

    public init(
        kind: FrameKind, origin: NodeID, packetID: UInt32, destination: NodeID? = nil,
        hopStart: UInt8, hopsTaken: UInt8 = 0, wantsAck: Bool = false, relayer: UInt8? = nil,
        fragment: Fragment? = nil, expiresAtMinute: UInt32
    ) {
        self.kind = kind
        self.origin = origin
        self.packetID = packetID
        self.destination = destination
        self.hopStart = hopStart
        self.hopsTaken = hopsTaken
        self.wantsAck = wantsAck
        self.relayer = relayer ?? origin.shortID
        self.fragment = fragment
        self.expiresAtMinute = expiresAtMinute
    }

    public var key: PacketKey { PacketKey(origin: origin, packetID: packetID) }

    /// The key of the message this frame is part of: its first piece's (fragments take
    /// consecutive packet ids), the frame's own when it is whole. Acknowledgements name it.
    public var messageKey: PacketKey {
        PacketKey(origin: origin, packetID: packetID &- UInt32(fragment?.index ?? 0))
    }

    /// Hops this copy may still travel.
    public var hopsLeft: Int { max(0, Int(hopStart) - Int(hopsTaken)) }

    /// The header a relay transmits: one more hop taken, the relay as last sender.
    public func relayed(by relay: NodeID) -> MeshHeader {
        var copy = self
        copy.hopsTaken = hopsTaken &+ 1
        copy.relayer = relay.shortID
        return copy
    }
}
