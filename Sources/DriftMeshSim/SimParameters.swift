import DriftMesh

/// One simulation run's scenario.
public struct SimParameters: Sendable {
    public var nodes: Int
    public var seed: UInt64
    public var router: SimRouterKind
    /// Broadcasts sent after the warm-up, from random origins.
    public var messages: Int
    /// Side of the square area, m (Meshtasticator: 15 000).
    public var areaM = 15_000.0
    /// Minimum distance between boxes, m (Meshtasticator: 10).
    public var minimumDistanceM = 10.0
    public var channel = ChannelModel()
    /// LoRa payload of one data frame: 40 bytes of application data + 16 of header, as Meshtasticator.
    public var dataFrameBytes = 56
    /// Frame overhead around a hello payload (header + tag), bytes.
    public var helloOverheadBytes = 16
    /// Hop limit set by the origin. Meshtastic's default is 3; ours defaults to 7 (the
    /// pruning makes extra hops cheap — see docs/mesh-routing.md).
    public var hopLimit: UInt8
    /// Mean time between messages of one box (Meshtasticator PERIOD: 100 s); messages
    /// mesh-wide come every `period / nodes` on average (exponential).
    public var periodPerNode: Duration = .seconds(100)
    /// Hellos before the first message (our router only).
    public var warmUp: Duration = .seconds(600)
    /// Hello period during the warm-up, and after it.
    public var warmUpHelloPeriod: Duration = .seconds(120)
    public var helloPeriod: Duration = .seconds(300)
    /// Time after the last message for relays and retries to finish.
    public var drain: Duration = .seconds(120)
    /// Tuning of our router (slot and hello periods are set by the simulator).
    public var ourConfiguration = MeshRouterConfiguration.standard
    /// Repair under contention (our router only): from the first message on, every box runs a
    /// Trickle timer (RFC 6206) and broadcasts its `SyncDigest`s when it fires; a box that
    /// hears a digest lacking packets it has held for `repairSettle` sends them again after a
    /// random delay up to `repairJitter` (not again within `repairMinimumInterval`, and not
    /// when it overhears another box's repair first). Digests and repairs go through the same
    /// queue, listen-before-talk and collisions as data.
    public var reconcile = true
    /// Trickle Imin, doublings to Imax, redundancy k.
    public var repairMinimumInterval: Duration = .seconds(30)
    public var repairDoublings = 4
    public var repairRedundancy = 1
    /// A box resets its Trickle timer when it receives a packet for the first time (new data).
    public var repairResetOnNewPacket = false
    /// Our router's `channelBusy`: the share of the last `busyWindow` a box heard frames
    /// above this (only used with `cancelAfterCopiesOnlyWhenBusy`).
    public var busyUtilisation = 0.10
    public var busyWindow: Duration = .seconds(30)
    public var repairSettle: Duration = .seconds(20)
    public var repairJitter: Duration = .seconds(4)
    /// The window for `connectedReachWithinRepairWindow`; the run lasts at least this long after the last message.
    public var repairWindow: Duration = .seconds(300)
    /// Random 32-bit node ids as on real boxes (seeded; low bytes may collide). `false`:
    /// the old scheme whose low bytes (`2i`) never collide (review finding 6).
    public var randomNodeIDs = true
    /// The baseline keeps relays cancellable in the radio queue (the firmware). `false`
    /// reproduces the old model (review finding 1).
    public var baselineCancelsQueued = true
    /// Calibration against Meshtasticator: the baseline uses its MAC (lib/mac.py) and slot
    /// (8.5 symbols), 3 retransmissions, and the channel is falsely busy at 10 % of checks
    /// (lib/phy.py `is_channel_active` with `INTERFERENCE_LEVEL` 0.05).
    public var meshtasticatorScenario = false
    /// The simulator as it was before issue 19 (review reproduction only): the baseline's
    /// old MAC and 77.2 ms slot, channel activity seen after 77.2 ms, and (set by the
    /// caller) σ = 2 dB and collision-free ids.
    public var legacyModel = false

    public init(nodes: Int, seed: UInt64, router: SimRouterKind, messages: Int = 20, hopLimit: UInt8? = nil) {
        self.nodes = nodes
        self.seed = seed
        self.router = router
        self.messages = messages
        self.hopLimit = hopLimit ?? (router == .ours ? 7 : 3)
    }
}
