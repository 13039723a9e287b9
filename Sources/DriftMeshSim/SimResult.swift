/// The figures of one run (`driftd sim mesh --json` prints one per run).
public struct SimResult: Sendable, Hashable, Codable {
    public var router: String
    public var nodes: Int
    public var seed: UInt64
    /// Useful receptions / (messages × (nodes − 1)).
    public var reachability: Double
    /// Useful receptions / all receptions of data frames.
    public var usefulness: Double
    /// Data-frame transmissions (origins, relays, retries) per message.
    public var transmissionsPerBroadcast: Double
    /// Data-frame time on air per useful reception, ms.
    public var airtimePerDeliveredMs: Double
    /// Receptions lost to overlapping transmissions (data and hello frames).
    public var collisions: Int
    public var latencyP50Ms: Double
    public var latencyP95Ms: Double
    // Extras.
    public var messages: Int
    public var hopLimit: Int
    /// Useful receptions / reachable-in-principle receptions (boxes connected to the origin).
    public var connectedReachability: Double
    /// After the reconciliation phase, share of connected boxes holding each message (ours only; else equal to `connectedReachability`).
    public var reachabilityAfterSync: Double
    public var helloTransmissions: Int
    public var helloAirtimeMs: Double
    public var syncTransmissions: Int
    public var syncAirtimeMs: Double
    /// Relays cancelled before they went on air (ours: router decisions; Meshtastic: overheard duplicates).
    public var relaysCancelled: Int
    /// Ours: first receptions not relayed because every neighbour was covered.
    public var relaysPruned: Int
    /// Retransmissions without a relay heard (ours: implicit-ack retry; Meshtastic: the origin's want-ack retransmissions).
    public var retries: Int
    public var meanDegree: Double
    /// Share of boxes with two ids of the same low byte (the relayer field) among themselves
    /// and the boxes they share a link with.
    public var shortIDCollisionShare: Double
    /// Feasibility reference (`BroadcastPlan`, centralised greedy, no collisions), per
    /// message from its origin on this run's topology: frames needed per broadcast…
    public var planTransmissions: Double
    /// …the share of (messages × (nodes − 1)) it reaches (every box reachable over links usable one way)…
    public var reachabilityBound: Double
    /// …and its usefulness (reached / all receptions): about the best any router can get here.
    public var usefulnessBound: Double
}
