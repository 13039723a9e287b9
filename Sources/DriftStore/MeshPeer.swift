import DriftMesh
import Foundation

/// A box this box has heard, with the public key first heard for it (trust on first use).
public struct MeshPeer: Hashable, Sendable {
    public var node: NodeID
    /// The X25519/Ed25519 public key (32 bytes) first heard for `node`.
    public var publicKey: [UInt8]
    public var firstSeen: Date
    public var lastSeen: Date
    /// Signal of the latest reception, when known.
    public var lastLink: LinkQuality?
    /// Hops the latest frame from it travelled, when known.
    public var hops: Int?

    public init(node: NodeID, publicKey: [UInt8], firstSeen: Date, lastSeen: Date, lastLink: LinkQuality?, hops: Int?) {
        self.node = node
        self.publicKey = publicKey
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.lastLink = lastLink
        self.hops = hops
    }
}

/// What ``MeshStore/rememberPeer(_:publicKey:at:link:hops:)`` made of a key.
public enum MeshPeerRemembrance: Hashable, Sendable {
    /// First time this node id was heard: the key is now pinned.
    case new
    /// The pinned key matched; last seen, signal and hops were updated.
    case known
    /// A different key is pinned for this node id: refused, nothing changed.
    case keyMismatch(pinned: [UInt8])
}
