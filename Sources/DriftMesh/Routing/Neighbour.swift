/// A box we hear directly, learnt from its hello beacons.
public struct Neighbour: Sendable, Hashable {
    public var id: NodeID
    /// How we heard its last hello (data frames may be sent at reduced power).
    public var link: LinkQuality
    /// When we last heard it: its hello, or (``MeshRouterConfiguration/neighboursKeptByTheirFrames``)
    /// another frame it sent. It is forgotten three hello periods after.
    public var lastHeard: Duration
    /// When we last heard its hello.
    public var lastHello: Duration
    /// Its public key as carried in its hello (opaque bytes; the node passes the key it holds
    /// for a hello without one).
    public var publicKey: [UInt8]
    /// Its own 1-hop neighbours and how well it hears them (our 2-hop knowledge).
    public var neighbours: [NodeID: UInt8]

    public init(id: NodeID, link: LinkQuality, lastHeard: Duration, lastHello: Duration? = nil, publicKey: [UInt8], neighbours: [NodeID: UInt8]) {
        self.id = id
        self.link = link
        self.lastHeard = lastHeard
        self.lastHello = lastHello ?? lastHeard
        self.publicKey = publicKey
        self.neighbours = neighbours
    }

    /// Quality bucket of our link to it (see `LinkBucket`).
    public var bucket: UInt8 { LinkBucket.bucket(snr: link.snr) }
}

/// Link quality in four buckets by SNR, as carried in hellos.
///
/// LongFast (SF11) decodes down to about −17.5 dB SNR: 0 = marginal (< −12 dB),
/// 1 = fair (−12…−6), 2 = good (−6…0), 3 = strong (≥ 0 dB).
public enum LinkBucket {
    public static func bucket(snr: Double) -> UInt8 {
        switch snr {
        case ..<(-12): 0
        case ..<(-6): 1
        case ..<0: 2
        default: 3
        }
    }
}
