/// What a mesh frame is, at the mesh layer (4 bits on the wire).
///
/// Application traffic (bottles, chat lines, camp beacons) rides inside `broadcast`
/// and `directed` frames; the mesh layer does not look into it.
public enum FrameKind: UInt8, Sendable, Hashable, CaseIterable {
    /// Periodic neighbour beacon: the sender's public key and the neighbours it hears.
    case hello = 0
    /// Application payload for every box.
    case broadcast = 1
    /// Application payload for one box (`destination` set), acknowledged end to end.
    case directed = 2
    /// End-to-end acknowledgement of a directed frame (its packet id in the payload).
    case ack = 3
    /// Store-and-forward reconciliation: a digest of the packets the sender holds.
    case digest = 4
    /// Store-and-forward reconciliation: "send me these packets".
    case request = 5
    /// A box's neighbour list (a keyless hello payload), flooded to every box
    /// (``MeshRouterConfiguration/topologyPlan``).
    case topology = 6
}

extension FrameKind {
    /// A packet of the mesh's data — a broadcast, a directed message or its acknowledgement —
    /// as opposed to the boxes' own housekeeping (hellos, digests, requests, topology adverts).
    public var carriesData: Bool {
        self == .broadcast || self == .directed || self == .ack
    }
}
