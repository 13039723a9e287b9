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
    /// Receptions lost to overlapping transmissions (every kind of frame, the warm-up included).
    public var collisions: Int
    public var latencyP50Ms: Double
    public var latencyP95Ms: Double
    // Extras.
    public var messages: Int
    public var hopLimit: Int
    /// Useful receptions / reachable-in-principle receptions (boxes connected to the origin).
    public var connectedReachability: Double
    /// At the end of the run (≥ 5 minutes after the last message), share of connected boxes
    /// holding each message, repairs included (ours; the baseline has no repair).
    public var reachabilityAfterSync: Double
    /// Share of connected boxes holding each message within `repairWindow` (5 minutes) of
    /// its origination, flood and repairs under contention together.
    public var connectedReachWithinRepairWindow: Double
    /// Airtime of data frames (the one-shot flood), and of everything: hellos + repair
    /// (digests and repaired packets) + data, ms.
    public var dataAirtimeMs: Double
    public var totalAirtimeMs: Double
    /// Hellos from the first message to the end of the run (the warm-up's are left out).
    public var helloTransmissions: Int
    public var helloAirtimeMs: Double
    public var syncTransmissions: Int
    public var syncAirtimeMs: Double
    // Repair under contention (ours), else absent: of the sync frames, the digests and their
    // airtime (node machines: full and compact digests; the rest are requests), and (router
    // only) the repaired packets…
    public var digestTransmissions: Int?
    /// Relays planned on the topology (`--topology-plan`), else absent: topology adverts
    /// originated over the whole run (warm-up included) and their frames (origins' and relays'),
    /// the frames and airtime from the first message on (in `totalAirtimeMs`), and the relays
    /// that went out because the plan named their box.
    public var topologyAdverts: Int?
    public var topologyFramesAll: Int?
    public var topologyTransmissions: Int?
    public var topologyAirtimeMs: Double?
    public var plannedRelays: Int?
    /// With `--node-machine`: late planned relays taken back off the queue when the radio was
    /// free (``MeshRouterConfiguration/topologyPlannedRelayLateCheckedBeforeSending``).
    public var lateRelaysTakenBack: Int?
    /// Advert repair (``MeshRouterConfiguration/topologyRepair``) over the whole run: requests for
    /// lists the boxes lacked, the lists they named, adverts sent again in answer, and asks not
    /// answered because the box had answered with that advert within the hold-off. In the
    /// router model both are topology frames (in `topologyFramesAll`, and from the first message on
    /// in `topologyTransmissions`); in `--node-machine` runs a request is a sync frame.
    public var topologyRequests: Int?
    public var topologyListsAsked: Int?
    public var topologyAnswers: Int?
    public var topologyAnswersHeldOff: Int?
    /// Adverts a box lacking a list across one-way links did not relay, and its own it did not
    /// send again, because it had used over a quarter of its airtime budget
    /// (`MeshRouterConfiguration.topologyFloodBudgetShare`; the whole run).
    public var topologyFloodsHeldByBudget: Int?
    /// At the end of the warm-up: the mean share of the boxes whose neighbour lists a box knows,
    /// and the share of (box, origin) relay decisions of the boxes' own plans that agree with
    /// the plan on the true links (those a hello can report); and the mean share a box could
    /// know at all — the boxes heard by some box (they advertise) with a chain of links to it
    /// (the flood of their adverts can get there), itself included — so that known ÷ knowable
    /// is what the adverts and their repair missed.
    public var topologyKnownShare: Double?
    public var topologyKnowableShare: Double?
    public var topologyPlanAgreement: Double?
    /// With `SimParameters.boxesOfOlderBuild`: topology frames (adverts, their relays and
    /// answers) that boxes of the older build decoded and dropped as of an unknown kind.
    public var topologyDroppedByOlderBuilds: Int?
    /// …and which boxes those were (indices, as in `--export-topology`).
    public var boxesOfOlderBuild: [Int]?
    public var digestAirtimeMs: Double?
    public var repairTransmissions: Int?
    /// …of which relayed on by the router of a box that got the packet as a repair (`repairRelays`)…
    public var repairsRelayed: Int?
    /// …and those that gave no box the packet (all had it, or lost it to a collision).
    public var repairsWasted: Int?
    /// Times a digest or repair was put off until the flood had passed (`SimParameters.repairHoldOff`).
    public var repairsHeldOff: Int?
    /// Relays cancelled before they went on air (ours: router decisions; Meshtastic: overheard duplicates).
    public var relaysCancelled: Int
    /// Ours: first receptions not relayed because every neighbour was covered.
    public var relaysPruned: Int
    /// Retransmissions without a relay heard (ours: implicit-ack retry; Meshtastic: the origin's want-ack retransmissions).
    public var retries: Int
    public var meanDegree: Double
    /// Our router: the neighbours a box counts (heard, not expired), as the mean over the boxes
    /// that are on, sampled once a minute after the warm-up: the mean of those samples, and the
    /// lowest. At most ``meanDegree`` (a box hears no box out of range); far below it, boxes
    /// forget neighbours that are there (on a busy channel their hellos went unheard, docs/
    /// mesh-simulation.md "Sustained load"). `nil` for the baselines.
    public var neighboursKnownMean: Double?
    public var neighboursKnownLowest: Double?
    /// Share of boxes with two ids of the same low byte (the relayer field) among themselves
    /// and the boxes they share a link with.
    public var shortIDCollisionShare: Double
    /// Feasibility reference (`BroadcastPlan`, centralised greedy, no collisions), per
    /// message from its origin on this run's topology: frames needed per broadcast…
    public var planTransmissions: Double
    /// …the share of (messages × (nodes − 1)) it reaches (every box reachable over links usable one way)…
    public var reachabilityBound: Double
    /// …and its usefulness (reached / all receptions). Greedy: not a bound (the exact optimum is below).
    public var usefulnessBound: Double
    /// Multipoint relays (`MultipointRelayPlan`: OLSR's sender-designated relays with perfect
    /// 2-hop knowledge, nothing colliding), per message from its origin: frames per broadcast
    /// and the share of (messages × (nodes − 1)) reached.
    public var mprTransmissions: Double?
    public var mprReachability: Double?
    /// The local pruning schemes (`LocalRelayPlans.swift`), each on the run's topology with
    /// perfect 2-hop knowledge and nothing colliding, by name: `multipointRelays`
    /// (``MultipointRelayPlan``), `partialDominantPruning` (``PartialDominantPruningPlan``),
    /// `partialDominantPruningAnyCopy` (the same, relaying on a later copy's designation too),
    /// `ruleKBackbone` (``RuleKBackbonePlan``).
    public var referencePlans: [String: ReferencePlanFigures]?
    /// ``collisions`` from the end of the warm-up on (the span total airtime counts): the
    /// warm-up's hellos and, with the topology plan, its adverts left out.
    public var collisionsMeasured: Int?
    /// Our boxes' frames that came ready less than a slot after a frame they sensed ended and
    /// waited 1…`lookSlots` slots first (``SimParameters/quietBackOff``; `nil` when off or not ours).
    public var quietWaits: Int?
    /// Where first copies went (router runs on a channel that collides; `nil` otherwise).
    public var usefulLosses: UsefulLosses?
    /// Our router's relays of the flood by why they went (`MeshRouter.RelayReason`'s raw
    /// values), per message (router runs of ours; `nil` otherwise).
    public var relaysByReason: [String: RelayFigures]?
    /// Why the flood missed the boxes it could reach, as shares of all (message, box) pairs
    /// (router runs; ``MissedReach``).
    public var missedReach: MissedReach?
    /// Each box's own time on air from the end of the warm-up to the end of the run, as a share
    /// of that span, averaged over boxes; and the busiest box's most airtime in any one-hour
    /// window, as a share of the hour (a run shorter than an hour: its whole airtime ÷ 1 h) —
    /// what a duty-cycle rule limits (`--duty-cycle`) and the battery pays for.
    public var txDutyMean: Double?
    public var txDutyMax: Double?
    /// With `--node-machine --duty-cycle`: how long the boxes' airtime budgets held their
    /// frames back from the first message on, seconds per run summed over boxes — the flood's
    /// relays and the boxes' own messages (foreground), and catch-up, digests and hellos
    /// (background) — and how many boxes were held at all; and the mean seconds per box among
    /// the fifth of boxes that sent the most relays in that time, against the other boxes.
    public var budgetHeldForegroundS: Double?
    public var budgetHeldBackgroundS: Double?
    public var boxesHeldByBudget: Int?
    public var budgetHeldTopRelayersS: Double?
    public var budgetHeldOtherBoxesS: Double?
    // With `--node-machine` (SimParameters.nodeMachine), else absent.
    /// Our boxes ran the daemon's whole node machine.
    public var nodeMachine: Bool?
    /// Messages sent to one box, and the shares delivered to it and confirmed back to their
    /// origin by its acknowledgement, by the end of the run.
    public var directedMessages: Int?
    public var directedDelivered: Double?
    public var directedConfirmed: Double?
    /// Median and 95th percentile (nearest rank) of the time from sending to delivery at the
    /// destination, ms, over the directed messages delivered.
    public var directedLatencyP50Ms: Double?
    public var directedLatencyP95Ms: Double?
    /// End-to-end retries of directed messages from the outboxes (transmissions after the first).
    public var outboxRetries: Int?
    /// Directed messages of other boxes that relays sent once more to their destination, a
    /// neighbour, for want of its acknowledgement (`MeshCounters.lastHopRetries`).
    public var lastHopRetries: Int?
    /// Directed messages their origins sent again because no neighbour was heard passing them
    /// on (`MeshCounters.firstHopRetries`).
    public var firstHopRetries: Int?
    /// First-hop and quick retries armed after the sending, once the way to the destination
    /// became known (`MeshCounters.retriesArmedLate`).
    public var retriesArmedLate: Int?
    /// Acknowledgements destinations sent again on hearing another copy of a message they had
    /// acknowledged (`MeshCounters.acksRepeated`).
    public var acksRepeated: Int?
    /// Catch-up copies sent for neighbours that lacked a held frame (counted as data frames too).
    public var catchUpFrames: Int?
    /// Airtime of the flood's data frames alone, ms: `dataAirtimeMs` less the catch-up copies
    /// and the relays of packets their senders got by catch-up (what the router-only runs count
    /// as repair). `totalAirtimeMs` ÷ it is the router-only runs' total ÷ data airtime: both
    /// count control frames from the first message on.
    public var floodDataAirtimeMs: Double?
    /// Digests and requests sent before the first message, ms: every box meeting its neighbours
    /// and sending each its full digest, what a mesh costs once. Left out of `syncAirtimeMs` and
    /// `totalAirtimeMs`, as the warm-up's hellos are.
    public var warmUpSyncAirtimeMs: Double?
    /// Hellos sent before the first message and their airtime, ms, left out of
    /// `helloTransmissions` and `totalAirtimeMs` like the digests above; and the follow-up hellos
    /// of the boxes' starts, sent at any time (``MeshRouterConfiguration/helloFollowsUpStart``).
    public var warmUpHelloTransmissions: Int?
    public var warmUpHelloAirtimeMs: Double?
    public var followUpHellos: Int?
    /// Of `digestTransmissions` and `digestAirtimeMs`, the full digests (``SyncDigest``: a box
    /// meeting a neighbour, or lacking what paced repair did not bring); the rest are compact.
    public var fullDigestTransmissions: Int?
    public var fullDigestAirtimeMs: Double?
    /// The data frames that were not the flood's (`floodDataAirtimeMs` leaves them out), and the
    /// boxes that got a broadcast first from one of them: what catch-up and paced repair sent,
    /// and how much of it a box needed.
    public var catchUpDataFrames: Int?
    public var catchUpReceptions: Int?
    /// Of `catchUpDataFrames`, the broadcasts that went on air when every box in range of their
    /// sender held them already: answers to a digest or request that was out of date, or a
    /// second answerer's.
    public var catchUpUnneededFrames: Int?
    /// With outages (`SimParameters.outages`, node runs): the broadcasts a box lacked when it
    /// came back on (sent before from a box connected to it, whoever held them then), the share
    /// of them it held within `repairWindow` of coming back, and the median time it took for
    /// those it got, ms. The switched-off boxes also count in the `connected…` figures, as
    /// boxes that did not get what was sent while they were off in time.
    public var returnedLacking: Int?
    public var returnedCaughtUpWithinRepairWindow: Double?
    public var returnedCatchUpP50Ms: Double?
    // Against the exact optimum (tools/mesh-optimum), when its stored data holds this topology.
    /// Fewest frames per broadcast reaching every reachable box, collision-free.
    public var optimumFrames: Double?
    /// Best usefulness of such a broadcast (reached / fewest receptions).
    public var optimumUsefulness: Double?
    /// Every MILP of this run was solved to optimality (else: best found within the time limit).
    public var optimumProven: Bool?
    /// Share of messages our router delivered to every box the optimum reaches (equal reach).
    public var equalReachShare: Double?
    /// On those messages: our frames / the optimum's…
    public var framesVsOptimum: Double?
    /// …and our usefulness / the optimum's (its fewest receptions / ours).
    public var usefulnessVsOptimum: Double?
    /// With `SimParameters.recordReceptionLatencies`: per message (in origination order) and
    /// box, ms from the origin's send to the box's first reception of the flood's data frame;
    /// −1 where it had none (the origin too). Router runs only. `driftd sim mesh
    /// --paired-latency` pairs two runs with ``pairLatencies(_:_:)`` and leaves this out.
    public var receptionLatenciesMs: [Double]?
    /// Deliveries (message, box) both routers of one seed made in one shot (``pairLatencies(_:_:)``).
    public var pairedDeliveries: Int?
    /// This router's median latency over those deliveries, ms: latency at equal reach.
    public var pairedLatencyP50Ms: Double?

    /// Compares two runs of the same seed (the same topology and messages, e.g. our router and
    /// the baseline) at equal reach: over the deliveries both made, each run's median latency.
    /// A router that reaches farther boxes has a longer median over its own deliveries (they
    /// came more hops) without being slower to the boxes both reach; this separates the two.
    /// Needs both runs' ``receptionLatenciesMs`` of the same size; sets ``pairedDeliveries``
    /// and ``pairedLatencyP50Ms`` on both, or nothing.
    public static func pairLatencies(_ a: inout SimResult, _ b: inout SimResult) {
        guard let x = a.receptionLatenciesMs, let y = b.receptionLatenciesMs,
              let paired = pairedMedians(x, y) else { return }
        a.pairedDeliveries = paired.count
        b.pairedDeliveries = paired.count
        a.pairedLatencyP50Ms = paired.first
        b.pairedLatencyP50Ms = paired.second
    }

    /// Over the entries both lists have (≥ 0), how many and the median of each (the upper
    /// median of an even count, as `latencyP50Ms`; 0 when there are none); `nil` when the
    /// lists differ in length.
    public static func pairedMedians(_ x: [Double], _ y: [Double]) -> (count: Int, first: Double, second: Double)? {
        guard x.count == y.count else { return nil }
        var both: [(Double, Double)] = []
        for (u, v) in zip(x, y) where u >= 0 && v >= 0 { both.append((u, v)) }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int((0.5 * Double(sorted.count - 1)).rounded()))]
        }
        return (both.count, median(both.map(\.0)), median(both.map(\.1)))
    }
}

/// A reference plan's figures over a run's messages, like the router's: frames per broadcast,
/// reach, usefulness (reached / receptions, every box in range decoding each frame) and, when
/// the exact optimum's data holds the topology, the same comparison at equal reach as the
/// router's `equalReachShare`, `framesVsOptimum` and `usefulnessVsOptimum`.
public struct ReferencePlanFigures: Sendable, Hashable, Codable {
    public var transmissions: Double
    public var reachability: Double
    public var usefulness: Double
    public var equalReachShare: Double?
    public var framesVsOptimum: Double?
    public var usefulnessVsOptimum: Double?

    public init(transmissions: Double, reachability: Double, usefulness: Double) {
        self.transmissions = transmissions
        self.reachability = reachability
        self.usefulness = usefulness
    }
}

/// Relays of one kind that went on the air, per message: how many, the first copies they
/// brought, and those that brought none — every box in range held the packet already
/// (`reachedNobody`), or the boxes that lacked it lost every copy (`allLost`).
public struct RelayFigures: Sendable, Hashable, Codable {
    public var frames = 0.0
    public var firstCopies = 0.0
    public var reachedNobody = 0.0
    public var allLost = 0.0

    public init() {}
}

/// First copies lost, per message, by cause: a flood's data frame arriving above the
/// sensitivity at a box that did not hold its packet yet, and not decoded. A box may still get
/// the packet from a later copy, so these count lost copies, not boxes missed.
public struct UsefulLosses: Sendable, Hashable, Codable {
    /// Overlapped by another box's data frame, the later of the two senders unable to hear the
    /// earlier (hidden terminals): the same packet (two relays of one flood) or another packet
    /// (two floods at once).
    public var hiddenSamePacket = 0.0
    public var hiddenOtherPacket = 0.0
    /// Overlapped by a data frame the later sender could hear: with listen before talk, both
    /// found the channel clear within one activity-detection time.
    public var audibleSamePacket = 0.0
    public var audibleOtherPacket = 0.0
    /// Overlapped by a hello, digest or repair.
    public var controlFrames = 0.0
    /// The box was transmitting when the frame started, or began to during it (half duplex).
    public var halfDuplex = 0.0

    public init() {}

    /// All of them.
    public var total: Double {
        hiddenSamePacket + hiddenOtherPacket + audibleSamePacket + audibleOtherPacket + controlFrames + halfDuplex
    }

    /// The mean over runs (`nil` when any run has none).
    public static func mean(_ runs: [UsefulLosses?]) -> UsefulLosses? {
        guard !runs.isEmpty, runs.allSatisfy({ $0 != nil }) else { return nil }
        var sum = UsefulLosses()
        for case let r? in runs {
            sum.hiddenSamePacket += r.hiddenSamePacket
            sum.hiddenOtherPacket += r.hiddenOtherPacket
            sum.audibleSamePacket += r.audibleSamePacket
            sum.audibleOtherPacket += r.audibleOtherPacket
            sum.controlFrames += r.controlFrames
            sum.halfDuplex += r.halfDuplex
        }
        return sum.perMessage(runs.count)
    }

    /// Each count divided by `messages`.
    public func perMessage(_ messages: Int) -> UsefulLosses {
        let k = Double(max(messages, 1))
        var r = self
        r.hiddenSamePacket /= k
        r.hiddenOtherPacket /= k
        r.audibleSamePacket /= k
        r.audibleOtherPacket /= k
        r.controlFrames /= k
        r.halfDuplex /= k
        return r
    }
}
