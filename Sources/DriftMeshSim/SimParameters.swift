import DriftMesh

/// One simulation run's scenario.
public struct SimParameters: Sendable {
    public var nodes: Int
    public var seed: UInt64
    /// Non-zero: the same topology and messages as `seed`, with other random draws for the
    /// channel access, the relay jitter and every box's router or node — how much of a per-seed
    /// difference between two settings is chance (docs/mesh-simulation.md).
    public var dynamicsSeed: UInt64 = 0
    /// What the routers', node machines' and Trickle timers' seeds are mixed with (0 when
    /// `dynamicsSeed` is 0, so the default runs are unchanged).
    var dynamicsSalt: UInt64 { dynamicsSeed &* 0xD6E8_FEB8_6659_FD93 }
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
    /// Bursts instead of Meshtasticator's flat rate (`--burst-every-s`, `--burst-length-s`):
    /// the messages drawn for each `every` from the first message on are packed into that span's
    /// first `length`, in order. The same messages, origins and mean rate, bunched as a
    /// festival's are (everyone posts when the headline act starts). `nil`: the flat rate.
    public var bursts: SimBursts?
    /// Hellos before the first message (our router only).
    public var warmUp: Duration = .seconds(600)
    /// With `ourConfiguration.topologyPlan`: the topology advert period during the warm-up
    /// (after it, the configuration's own), so the boxes have learnt the mesh when the first
    /// message goes out, as a mesh that has run for a few hours has.
    public var warmUpTopologyPeriod: Duration = .seconds(240)
    /// With `ourConfiguration.topologyPlan`: the warm-up's advert pace ends this long before
    /// the first message, so its last advert floods have died down when the messages start,
    /// as in a mesh that has run for hours (each box's advert every 3 hours goes on). Without
    /// it, the warm-up's floods ran into the first messages: some 6 floods at 50 boxes, whose
    /// frames took 5.5 first copies per message instead of 1.5 (docs/mesh-simulation.md).
    public var topologyQuietBeforeMessages: Duration = .seconds(240)
    /// With `ourConfiguration.topologyPlan` and `topologyRepair`: run advert repair in the quick
    /// warm-up too. Off: there the repair is left out — it asks 15 minutes after a box is
    /// named, which after a 10-minute warm-up falls among the measured messages, while the
    /// warm-up's adverts every 240 s stand in for the hours of periodic adverts (and repair) a
    /// settled mesh has had. At the daemon's pace (`warmUpAtDaemonPace`) it always runs.
    public var topologyRepairInQuickWarmUp = false
    /// With `ourConfiguration.topologyPlan`: this many boxes (the lowest indices; the boxes are
    /// placed at random) run this build with the plan off: they send no advert and follow no
    /// plan, and the others lack their lists for good; they relay the others' adverts (a build
    /// from before the plan does not: `boxesOfOlderBuild`).
    public var boxesWithoutPlan = 0
    /// With `ourConfiguration.topologyPlan`: this many boxes (the lowest indices, or with
    /// `olderBuildClustered` one area) run a build from before the planned relays. Besides the plan being off (as `boxesWithoutPlan`), a
    /// topology advert (frame kind 6) is a frame of unknown kind to them: decoded and dropped as
    /// malformed, its list neither learnt nor relayed, so no advert crosses them. (An advert
    /// request is a request frame they cannot parse either — as a box without the plan, they
    /// ignore it.) Nothing else of the older build is modelled: hellos, data and repair are the
    /// current build's.
    public var boxesOfOlderBuild = 0
    /// The boxes of an older build are one area left on it — box 0 and the `boxesOfOlderBuild − 1`
    /// boxes nearest to it — instead of boxes scattered at random.
    public var olderBuildClustered = false
    /// Hello period during the warm-up, and after it.
    public var warmUpHelloPeriod: Duration = .seconds(120)
    public var helloPeriod: Duration = .seconds(300)
    /// Our boxes run the daemon's own hello and advert pace from the moment they start
    /// (`helloPeriod`, `ourConfiguration`'s topology pace), as a mesh in the field does, instead
    /// of the warm-up's quicker hellos (`warmUpHelloPeriod`) and adverts (`warmUpTopologyPeriod`),
    /// which stand in for a mesh that has run for hours.
    public var warmUpAtDaemonPace = false
    /// Each of our boxes starts at its own moment, uniform over this span from the start of the
    /// run (at most the warm-up), and hears nothing before: independent hello, advert and
    /// Trickle phases, as boxes switched on one by one. `nil`: every box starts within the first
    /// hello period of the warm-up (`warmUpHelloPeriod`, or `helloPeriod` with
    /// `warmUpAtDaemonPace`) and the node machines' Trickle intervals run nearly in step.
    public var startSpread: Duration?
    /// Time after the last message for relays and retries to finish.
    public var drain: Duration = .seconds(120)
    /// Tuning of our router (slot and hello periods are set by the simulator).
    public var ourConfiguration = MeshRouterConfiguration.standard
    /// Our boxes' contention slot — the unit of the router's relay delays and of the
    /// listen-before-talk back-off, as in the daemon — instead of the modulation's
    /// (`LoRaModulation.slot`, which the daemon uses).
    public var ourSlot: Duration?
    /// Record each box's first-reception latency per message (`SimResult.receptionLatenciesMs`;
    /// router runs, not `nodeMachine`).
    public var recordReceptionLatencies = false
    /// Our boxes sense the carrier before they transmit (listen before talk: wait while a frame
    /// is on the air, as the daemon does on radios that report one). Off for radios that cannot:
    /// the E22 reports no carrier, so its boxes transmit when their turn comes, in the middle of
    /// a neighbour's frame too (`--no-carrier-sense`). The baseline always senses (CAD).
    public var carrierSense = true
    /// With `carrierSense`: our boxes sense only frames that reach them at or above this power
    /// (energy detection, dBm, as a radio that can only read the channel's RSSI would) instead
    /// of every frame above the CAD threshold. `nil`: CAD.
    public var carrierSenseThresholdDbm: Double?
    /// With `carrierSense`, our boxes: a frame that comes ready less than a slot after a frame
    /// the box sensed ended waits 1…``lookSlots`` slots first, as the daemon's listen before talk does
    /// (`MeshService`, `radioQuietWaits`, ``QuietBackOff``: not a relay of another box's data,
    /// which keeps its slot). `false` (`--no-quiet-back-off`): such frames start at once, as the
    /// daemon's did before issue 19's eighth session.
    public var quietBackOff = true
    /// With ``quietBackOff``: relays wait too (`--quiet-back-off-relays`; the daemon's rule of
    /// issue 19's eighth session).
    public var quietBackOffRelays = false
    /// With `carrierSense`, our boxes on a busy channel look again 1…``lookSlots`` slots later, however long
    /// the frame they sense lasts, as the daemon's listen before talk does (`MeshService`) since
    /// issue 19's session of 2026-12-06; `true` (`--listen-before-talk-waits-for-end`): they wait
    /// until the frames they sense end and then 1…8 slots, the daemon's rule before (the daemon's
    /// node: 8–14 % more data airtime at 20–50 boxes under load, no more reach; our router:
    /// 0.4–0.5 s more median latency at 30 boxes; `docs/mesh-simulation.md`).
    public var listenBeforeTalkWaitsForEnd = false
    /// With `carrierSense`: only relays of other boxes' data wait for the end on a busy channel
    /// (`--relays-wait-for-end`; measured and not kept: the daemon's node lost 1.3–4.4 points of
    /// reach at 20–50 boxes under load, `docs/mesh-simulation.md`).
    public var relaysWaitForEnd = false
    /// With `carrierSense`, our router (not `nodeMachine`): a relay of another box's data that finds
    /// the channel busy waits its planned delay again, drawn afresh — the same rank steps, a new
    /// draw of its SNR-scaled jitter (`MeshRouter.busyRedrawDelay`) — as the baseline's firmware
    /// re-draws its weighted delay, instead of looking again 1…``lookSlots`` slots later
    /// (`--relays-redraw-when-busy`; measured and not kept, `docs/mesh-simulation.md`, "Relays
    /// that re-draw their delay on a busy channel").
    public var relaysRedrawWhenBusy = false
    /// With `relaysRedrawWhenBusy`: the re-draw's rank step in slots (`MeshRouterConfiguration.
    /// redrawRankStepSlots`; `nil`, the full rank step; `--relays-redraw-step-slots`).
    public var relaysRedrawStepSlots: Int?
    /// Our boxes' implicit-ack retries wait up to this share of their timeout longer, drawn at
    /// random (`MeshRouterConfiguration.implicitAckRetryJitter`, the daemon's 0.5;
    /// `--implicit-ack-retry-jitter`; 0: the exact timeout, the rule before).
    public var implicitAckRetryJitter = 0.5
    /// With `carrierSense`, our boxes: the looks on a busy channel and the quiet back-off wait
    /// 1…`lookSlots` slots, as the daemon's listen before talk (`MeshService.lookSlotsAtMost`);
    /// 8 until issue 19's session of 2026-12-06 (`--look-slots 8`: in the daemon's node 8–11 %
    /// more data airtime at 30–50 boxes under load, fewer confirmations; `docs/mesh-simulation.md`,
    /// "Fewer slots a look").
    public var lookSlots = QuietBackOff.windowSlots
    /// The quiet back-off's own window, 1…N slots (`--quiet-back-off-slots`, an experiment);
    /// `nil`: ``lookSlots``.
    public var quietBackOffSlots: Int?
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
    /// A box that gets a packet as a repair hands it to its router as a first reception and
    /// relays it on (as a repair) when its neighbours look uncovered, as the daemon's node
    /// relays catch-up copies.
    public var repairRelays = true
    /// Repair digests list 16-bit hashes of the packets a box got within
    /// `repairDigestWindow` (`CompactDigest`) instead of full `SyncDigest`s; a receiver judges
    /// only what it got within that window less `repairDigestMargin`.
    public var repairCompactDigests = true
    /// A box whose neighbour's digest showed it lacks something sends its next digest even
    /// when it heard consistent ones meanwhile (`TrickleTimer.inconsistent(now:mustSend:)`): with
    /// k = 1 the boxes of a patch that all missed a packet sound consistent to each other and
    /// stay quiet. On by default since issue 19's last session: at 30 boxes under load 0.989 →
    /// 0.996 of connected boxes within 5 minutes for 1.92 → 1.97× the data's airtime (held-out
    /// seeds; 0.989 → 0.995 and 1.93 → 1.99× on the tuning seeds; docs/mesh-simulation.md).
    public var repairLackingUnsuppressed = true
    /// Consistent digests keep a box's own back only when every neighbour that hears it heard
    /// one of them, as in the daemon's node (`PacedRepair.suppressionCoversNeighbours`,
    /// `nodeRepairSuppressionCoversNeighbours`). Off in the router-only model by default.
    public var repairSuppressionCoversNeighbours = false
    public var repairDigestWindow: Duration = .seconds(30 * 60)
    public var repairDigestMargin: Duration = .seconds(10 * 60)
    /// Our router's `channelBusy` (a `ChannelBusyDetector`, as the daemon's): a box heard
    /// frames for at least this share of the last `busyWindow` (only used with
    /// `cancelAfterCopiesOnlyWhenBusy`, on by default).
    public var busyUtilisation = 0.10
    /// An ideal channel (diagnostic, `--collision-free`): every frame above the sensitivity is
    /// decoded — no collisions, no half-duplex loss. Listen before talk and the routers'
    /// timing stay as they are; what is left of the gap to the optimum is the routers' own.
    public var collisionFree = false
    public var busyWindow: Duration = .seconds(30)
    public var repairSettle: Duration = .seconds(20)
    public var repairJitter: Duration = .seconds(4)
    /// A box sends no digest and no repair until this long after it last got a packet from
    /// the flood (or sent one of its own): the flood may still be crossing its neighbourhood,
    /// where a repair frame would collide with its relays, and repair is not urgent. On since
    /// issue 19 (30 boxes, default load: one-shot reach 0.765 → 0.798, connected boxes within
    /// 5 minutes 0.986 → 0.995; docs/mesh-simulation.md, "Repair holds off while a flood
    /// passes"). `nil` = no hold-off.
    public var repairHoldOff: Duration? = .seconds(30)
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

    /// Our boxes run the daemon's whole node (`MeshNodeMachine` on `InMemoryNodeMemory`):
    /// sealed frames, the seen-set, held frames and catch-up digests, the outbox with its
    /// retries and acknowledgements, the transmit queue and the quiet rule, each box on the
    /// simulated clock. The simulator's own repair phase is off (the node's catch-up runs
    /// instead). Only with `router == .ours`.
    public var nodeMachine = false
    /// With `nodeMachine`: the share of drawn messages sent to one other box (drawn at
    /// random) instead of to all; those want an acknowledgement and are retried.
    public var directedShare = 0.0
    /// Boxes at these positions (metres) instead of drawn ones (`nodes` must match).
    public var positions: [(x: Double, y: Double)]?
    /// These messages instead of drawn ones; times count from the end of the warm-up.
    /// Destinations are honoured with `nodeMachine` only (the router alone floods).
    public var script: [SimMessage]?
    /// With `nodeMachine`: boxes switched off for a while (times from the end of the warm-up).
    /// A box that is off hears and sends nothing; it comes back as the daemon restarts: a new
    /// machine on the same memory.
    public var outages: [SimOutage] = []
    /// With `nodeMachine`: the node's store-and-forward catch-up rules (issue 19, finding 8),
    /// each of which can be switched off to measure what it does.
    public var catchUp = SimCatchUpRules()
    /// With `nodeMachine`: every node runs paced repair (`MeshNodeMachine.Settings.pacedRepair`)
    /// with the router-only repair's Imin (`repairMinimumInterval`) and its own doublings and
    /// redundancy (`nodeRepairDoublings`, `nodeRepairRedundancy`). On by default, as in the
    /// daemon (`mesh.paced_repair`) since issue 19.
    public var nodeRepair = true
    /// With `nodeRepair`: the node's Trickle doublings from Imin to Imax (the daemon's default,
    /// 3: Imax 4 minutes; `--repair-doublings` sets it and the router-only repair's
    /// `repairDoublings` alike).
    public var nodeRepairDoublings = MeshNodeMachine<InMemoryNodeMemory>.PacedRepair().doublings
    /// With `nodeRepair`: the node's Trickle redundancy k (the daemon's default, 3;
    /// `--repair-redundancy` sets it and the router-only repair's `repairRedundancy` alike).
    public var nodeRepairRedundancy = MeshNodeMachine<InMemoryNodeMemory>.PacedRepair().redundancy
    /// With `nodeRepair`: the node's `PacedRepair.lackingUnsuppressed` (the daemon's default;
    /// `--[no-]repair-lacking-unsuppressed` sets it and `repairLackingUnsuppressed` alike).
    public var nodeRepairLackingUnsuppressed = MeshNodeMachine<InMemoryNodeMemory>.PacedRepair().lackingUnsuppressed
    /// With `nodeRepair`: the node's `PacedRepair.digestsNeighboursInRepair` (default `false`, as
    /// in the daemon; `--digest-neighbours-in-repair` gives the rule before: a neighbour heard
    /// again gets the full digest even when its compact digest came meanwhile).
    public var nodeDigestsNeighboursInRepair = MeshNodeMachine<InMemoryNodeMemory>.PacedRepair().digestsNeighboursInRepair
    /// With `nodeRepair`: the node's `PacedRepair.digestRepeatsForNeighboursInRepair` (default
    /// `false`, as in the daemon; `--digest-repeats-for-neighbours-in-repair` gives the rule
    /// before: the repeat goes out whatever compact digests came meanwhile).
    public var nodeDigestRepeatsForNeighboursInRepair = MeshNodeMachine<InMemoryNodeMemory>.PacedRepair().digestRepeatsForNeighboursInRepair
    /// With `nodeRepair`: the node's `PacedRepair.digestsWhileAlone` (default `false`, as in the
    /// daemon; `--digests-while-alone` gives the rule before: a digest with no live neighbour
    /// goes out anyway).
    public var nodeDigestsWhileAlone = MeshNodeMachine<InMemoryNodeMemory>.PacedRepair().digestsWhileAlone
    /// With `nodeRepair`: the node's `PacedRepair.longerAboveBudgetShare` (the daemon's default,
    /// 0.5; `--repair-longer-above-budget`): only with `dutyCycle` does a box's budget have a limit.
    public var nodeRepairLongerAboveBudgetShare = MeshNodeMachine<InMemoryNodeMemory>.PacedRepair().longerAboveBudgetShare
    /// The node's paced repair sends its full digest when a neighbour's compact digests keep
    /// listing something it lacks (`PacedRepair.fullDigestWhenLackingAfter`; `nil`: never).
    public var nodeFullDigestWhenLackingAfter = MeshNodeMachine<InMemoryNodeMemory>.PacedRepair().fullDigestWhenLackingAfter
    /// The node's paced repair is kept back by consistent digests only when every neighbour
    /// heard one of them (`PacedRepair.suppressionCoversNeighbours`, the daemon's default).
    public var nodeRepairSuppressionCoversNeighbours = MeshNodeMachine<InMemoryNodeMemory>.PacedRepair().suppressionCoversNeighbours
    /// With `nodeMachine`: every box's airtime budget allows this share (0…1) of any hour, as
    /// the daemon's `AirtimeBudget` does in a duty-cycled sub-band (EU868 g1: 0.01); `nil` =
    /// no limit (the US band, the default).
    public var dutyCycle: Double?
    /// The router-only repair answers digests as the daemon's node does: not a box whose
    /// hello says it does not hear the answerer, a packet to the same box at most twice
    /// (`--repair-answers-unbounded`: every digest, as before issue 19's last sessions).
    public var repairAnswersBounded = true
    /// …and once more each time two hello periods have passed since the last answer, in the
    /// router-only model and the node alike (`MeshNodeMachine.Settings.repairAnswersRenewed`;
    /// `--repair-answers-not-renewed`: never again, the rule before).
    public var repairAnswersRenewed = true
    /// With `nodeMachine`: a packet capped for a neighbour is sent it once more when its compact
    /// digest shows an earlier answer got there (`MeshNodeMachine.Settings.repairAnswersRenewedWhenHeard`,
    /// the daemon's default).
    public var nodeRepairAnswersRenewedWhenHeard = true

    public init(nodes: Int, seed: UInt64, router: SimRouterKind, messages: Int = 20, hopLimit: UInt8? = nil) {
        self.nodes = nodes
        self.seed = seed
        self.router = router
        self.messages = messages
        self.hopLimit = hopLimit ?? (router == .ours ? 7 : 3)
    }
}

/// A scripted message (``SimParameters/script``).
public struct SimMessage: Sendable, Hashable {
    /// From the end of the warm-up.
    public var at: Duration
    public var from: Int
    /// `nil`: to all.
    public var to: Int?

    public init(at: Duration, from: Int, to: Int? = nil) {
        self.at = at
        self.from = from
        self.to = to
    }
}

/// A box switched off from `from` until `until` (from the end of the warm-up).
public struct SimOutage: Sendable, Hashable {
    public var box: Int
    public var from: Duration
    public var until: Duration

    public init(box: Int, from: Duration, until: Duration) {
        self.box = box
        self.from = from
        self.until = until
    }

    /// `count` distinct boxes of `nodes` drawn by `seed` (the same boxes whatever the router or
    /// its rules), each off from `from` until `until`.
    public static func drawn(count: Int, of nodes: Int, seed: UInt64, from: Duration, until: Duration) -> [SimOutage] {
        var rng = MeshRandom(seed: seed ^ 0x0FF0_0FF0_5EED_0001)
        var boxes = Array(0..<nodes)
        let count = min(max(0, count), nodes)
        for i in 0..<count {
            boxes.swapAt(i, rng.int(in: i...(nodes - 1)))
        }
        return boxes.prefix(count).sorted().map { SimOutage(box: $0, from: from, until: until) }
    }
}

/// The node machine's catch-up rules (``SimParameters/catchUp``); the defaults are the daemon's.
public struct SimCatchUpRules: Sendable, Hashable {
    /// A box sends its digest after its first hello (`MeshNodeMachine.Settings.announcesAtStart`).
    public var announceAtStart = true
    /// For a hello period after it starts a box relays as the fallback, never pruned
    /// (`MeshRouterConfiguration.neighbourLearningPeriod`; off = zero).
    public var learnNeighbours = true
    /// Answers wait a random time within this many longest frames (0 = at once).
    public var answerWindowFrames = 8
    /// Requests per missing packet (1 = never repeated).
    public var requestAttempts = 4
    /// Follow-ups of the start digest (0 = none).
    public var digestFollowUps = 2
    /// The most a box's first hello (and start digest) waits after it starts
    /// (`MeshRouterConfiguration.firstHelloSpread`); `nil` = the daemon's, a tenth of
    /// ``SimParameters/helloPeriod``; zero = at once (the rule before).
    public var firstHelloSpread: Duration?
    /// A packet asked for again is sent whatever copies are heard meanwhile
    /// (`MeshNodeMachine.Settings.answersRepeatedRequests`).
    public var answerRepeatedRequests = true
    /// A packet a neighbour's compact digest lacks counts as asked for
    /// (`MeshNodeMachine.Settings.compactLacksAskAgain`).
    public var compactLacksAskAgain = true
    /// A packet a neighbour lacks after another box's catch-up copy of it was heard counts as
    /// asked for again (`MeshNodeMachine.Settings.lacksAfterCopiesAskAgain`).
    public var lacksAfterCopiesAskAgain = true
    /// A neighbour whose hello lists nobody (it just started) gets answers to its compact
    /// digests (`MeshNodeMachine.Settings.repairAnswersBoxesJustStarted`).
    public var repairAnswersBoxesJustStarted = true
    /// A neighbour heard for the first time gets no full digest of its own when one of ours
    /// reaches it anyway (`MeshNodeMachine.Settings.newNeighbourDigestsShared`).
    public var newNeighbourDigestsShared = true
    /// Full digests sent within two hello periods of a start are followed up as the start
    /// digest is (`MeshNodeMachine.Settings.digestsAfterStartFollowedUp`).
    public var digestsAfterStartFollowedUp = true
    /// Repeated digests and the start digest's follow-ups wait a random answer delay
    /// (`MeshNodeMachine.Settings.digestRepeatsDelayed`).
    public var digestRepeatsDelayed = true
    /// An idle outbox is looked at with the node's housekeeping
    /// (`MeshNodeMachine.Settings.outboxLooksWithHousekeeping`).
    public var outboxLooksWithHousekeeping = true
    /// A full digest that cannot describe every origin starts at a random one
    /// (`MeshNodeMachine.Settings.digestOriginsRotate`).
    public var digestOriginsRotate = true
    /// An answer larger than one burst skips the frames already queued and starts at a random
    /// packet (`MeshNodeMachine.Settings.answersSpread`).
    public var answersSpread = true
    /// Background frames wait while the channel is busy with catch-up traffic too
    /// (`MeshNodeMachine.Settings.backgroundYieldsToBackground`).
    public var backgroundYieldsToBackground = false
    /// The busy fraction over which background frames wait
    /// (`MeshNodeMachine.Settings.backgroundBusyThreshold`).
    public var backgroundBusyThreshold = 0.25
    /// A hello still queued when the next is due is replaced by it, at normal priority
    /// (`MeshNodeMachine.Settings.hellosWaitOnePeriodAtMost`).
    public var hellosWaitOnePeriodAtMost = true
    /// A compact digest of more packets than fit shrinks its window
    /// (`MeshNodeMachine.Settings.compactDigestWindowShrinks`).
    public var compactDigestWindowShrinks = true
    /// How the node's compact digests list their packets
    /// (`MeshNodeMachine.Settings.compactDigestCoding`).
    public var compactDigestCoding: CompactDigest.Coding = .riceCoded
    /// A box that relayed a directed message to its destination, a neighbour, sends it once
    /// more when no acknowledgement is heard in time (`MeshNodeMachine.Settings.lastHopRetry`).
    public var lastHopRetry = true
    /// …only while the channel is not crowded (`MeshNodeMachine.Settings.lastHopRetryOnlyWhenQuiet`).
    public var lastHopRetryOnlyWhenQuiet = true
    /// …at most this many times, waiting for the answer again after each
    /// (`MeshNodeMachine.Settings.lastHopRetryRounds`).
    public var lastHopRetryRounds = 1
    /// The quick retry is not an outbox attempt (`MeshNodeMachine.Settings.quickRetryKeepsSchedule`).
    public var quickRetryKeepsSchedule = true
    /// Quick retries per directed message at most, those after the first on a quiet channel only
    /// (`MeshNodeMachine.Settings.quickRetryRounds`).
    public var quickRetryRounds = 2
    /// The origin of a directed message to a box two hops away sends it once more when no
    /// neighbour was heard passing it on in time (`MeshNodeMachine.Settings.firstHopRetry`).
    public var firstHopRetry = true
    /// The first-hop and quick retries of a directed message sent before the way to its
    /// destination was known are armed once it is (`MeshNodeMachine.Settings.retriesArmedOnceTheWayIsKnown`).
    public var retriesArmedOnceTheWayIsKnown = true
    /// The retries of a directed message (first-hop, quick, last-hop) wait a random extra share
    /// of their wait of up to this (`MeshNodeMachine.Settings.retryJitter`); 0: the exact waits
    /// (the rule before).
    public var retryJitter = 0.5
    /// …and the outbox's next attempt up to this share of the schedule's delay
    /// (`MeshNodeMachine.Settings.outboxRetryJitter`); 0: the exact schedule.
    public var outboxRetryJitter = 0.25
    /// A box keeps its frames back for the acknowledgement of a neighbour's directed frame to a
    /// box it does not hear (`MeshNodeMachine.Settings.quietForHiddenAnswers`).
    public var quietForHiddenAnswers = true
    /// A destination acknowledges again only copies that are retries
    /// (`MeshNodeMachine.Settings.acksRepeatedForRetriesOnly`).
    public var acksRepeatedForRetriesOnly = true
    /// A relay passes a directed message's retry on after a random delay
    /// (`MeshNodeMachine.Settings.retryRelaysJittered`).
    public var retryRelaysJittered = true
    /// …dropped when another box passes it on first (`MeshNodeMachine.Settings.retryRelaysSuppressed`).
    public var retryRelaysSuppressed = true

    public init() {}
}

/// Messages in bursts: each `every` of the drawn schedule squeezed into its first `length`.
public struct SimBursts: Sendable, Hashable {
    public var every: Duration
    public var length: Duration

    public init(every: Duration, length: Duration) {
        precondition(length > .zero && length <= every, "a burst lasts more than 0 and at most its period")
        self.every = every
        self.length = length
    }

    /// Where a message drawn `offset` µs after the first message's span starts goes.
    static func packed(_ offset: Int64, every e: Int64, length l: Int64) -> Int64 {
        offset / e * e + offset % e * l / e
    }
}
