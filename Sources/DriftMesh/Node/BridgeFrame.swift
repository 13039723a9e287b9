/// A sealed frame a gateway may carry to other meshes (``MeshNodeMachine/bridging``).
public struct BridgeFrame: Sendable {
    /// The frame as heard (or as sent, for our own): still sealed, hop count as it was.
    public var bytes: [UInt8]
    public var header: MeshHeader
    /// Heard for the first time (not in the seen-set before).
    public var firstTime: Bool
    /// This box made it.
    public var own: Bool
    /// Its destination is this box or a neighbour it hears: it need not leave the mesh.
    public var destinationIsLocal: Bool

    public init(bytes: [UInt8], header: MeshHeader, firstTime: Bool, own: Bool, destinationIsLocal: Bool) {
        self.bytes = bytes
        self.header = header
        self.firstTime = firstTime
        self.own = own
        self.destinationIsLocal = destinationIsLocal
    }
}

/// What the node did with a frame from another mesh (``MeshNodeInput/bridged(_:)``).
public enum BridgeVerdict: Sendable, Equatable {
    /// First seen here: routed, relayed and delivered like a heard frame.
    case accepted
    /// Already in the seen-set (it came back, or another gateway brought it first).
    case duplicate
    /// Another network key.
    case foreign
    /// The authentication tag (or a directed frame's origin tag) failed.
    case forged
    /// Not a frame.
    case malformed(String)
    /// Past its expiry.
    case expired
    /// A one-hop control frame (hello, digest, request) does not cross meshes.
    case refused
    /// The seen-set could not be written.
    case failed
}
