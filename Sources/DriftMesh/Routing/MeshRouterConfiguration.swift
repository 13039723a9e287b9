#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tuning of `MeshRouter`. Defaults suit the daemon on LongFast; the simulator
/// shortens `helloPeriod` during its warm-up.
public struct MeshRouterConfiguration: Sendable, Hashable {
    /// Mean time between hello beacons.
    public var helloPeriod: Duration
    /// Hellos are sent at `helloPeriod ± helloJitter` (uniform), so boxes do not synchronise.
    public var helloJitter: Duration
    /// A neighbour is forgotten after this many hello periods without a hello from it.
    public var missedHellosBeforeExpiry: Int
    /// One contention slot: the unit of relay delays and of the listen-before-talk back-off
    /// (the daemon sets `LoRaModulation.slot`, older Meshtastic firmware's: ≈ 77 ms at
    /// LongFast; current firmware's 28 ms cost reach at 30–50 boxes in the simulator).
    public var slot: Duration
    /// Extra slots of random jitter added to every relay delay (breaks ties); see
    /// `leaderJitterSlots`.
    public var jitterSlots: Int
    /// Slots of delay per missing uncovered neighbour below `rankCap`: a relay covering
    /// more uncovered neighbours goes first.
    public var slotsPerRank: Int
    /// Uncovered-neighbour counts at or above this rank get the shortest delay.
    public var rankCap: Int
    /// Order relays by their place among the neighbours that hold the packet too, instead of
    /// by our own uncovered count: each such neighbour that would reach more boxes still
    /// uncovered than we would (by its hello's neighbour list; ties broken per packet) puts
    /// our relay `slotsPerRank` later, at most `rankCap − 1` steps. On by default since
    /// issue 19: the best-placed relay no longer waits out the rank steps of a lower count,
    /// which cut the median latency at 30 boxes from 13.2 to 8.4 s in the simulator, with
    /// reach and frames within the seed sets' spread (docs/mesh-simulation.md).
    public var relayOrderAmongNeighbours = true
    /// A relay for a destination that is our neighbour and not covered yet goes first (no rank
    /// steps for coverage) — but in order among the neighbours that hold the packet and hear
    /// the destination too (ties broken per packet, one `slotsPerRank` step each, at most
    /// `rankCap − 1`). Without it two such relays both drew from the leader's jitter, which
    /// the SNR weighting shrinks to 16 slots for weak copies, and collided at the destination:
    /// on the four-box line of the simulator's tests (two boxes side by side between the ends)
    /// 0.795 of the directed messages were confirmed over seeds 31…130, 0.965 with it.
    public var destinationRelayOrder = true
    /// A neighbour stays in the table while this box hears its frames — its own broadcasts,
    /// and relays whose short id names it alone — not only its hellos; its neighbour list and
    /// link quality are still those of its last hello. `false`: only hellos keep it (the rule
    /// before). On a busy channel hellos are lost to collisions: in the simulator, 30 boxes
    /// under load for half an hour kept 4.4–4.8 neighbours of 5.9 although a hello went out at
    /// least every second period (docs/mesh-simulation.md, "Sustained load").
    public var neighboursKeptByTheirFrames = true
    /// With `relayOrderAmongNeighbours`: the jitter of a relay no known neighbour goes before
    /// (`nil` = `jitterSlots`). It only has to break ties with such relays we cannot know
    /// about (boxes we do not hear); the others' longer jitter spreads them out.
    public var leaderJitterSlots: Int? = 32
    /// While the channel is busy (`MeshRouter.channelBusy`): the leader's jitter instead of
    /// `leaderJitterSlots` (`nil` = the same as on a quiet channel). Off by default: in the
    /// simulator 0–1 slots cut the median latency at 30 boxes by 0.8 s with low-load reach
    /// unchanged, but lost 2.2–2.4 points of reach at 50 boxes under load (docs/mesh-simulation.md,
    /// "Relay jitter by SNR").
    public var busyLeaderJitterSlots: Int?
    /// The jitter of a leader (no known neighbour goes before it) that no hidden box can
    /// rival: no box its uncovered neighbours' hellos list, outside its own table, is listed by
    /// the copy's transmitter too (`nil` = no such rule). Off by default: in the simulator 0
    /// slots met the median latency at 30 boxes (6.5 → 6.0 s; Meshtastic at hop 7: 6.1 s) but
    /// lost 3.2 points of reach at 50 boxes under load and 1.5 at low load, not to collisions
    /// (docs/mesh-simulation.md, "Relay jitter by SNR").
    public var clearLeaderJitterSlots: Int?
    /// Apply `clearLeaderJitterSlots` only while the channel is busy.
    public var clearLeaderOnlyWhenBusy = false
    /// While the channel is busy: the jitter of the other relays instead of `jitterSlots`
    /// (`nil` = the same as on a quiet channel).
    public var busyJitterSlots: Int?
    /// Relay jitter by load: the jitter a relay would draw (`jitterSlots` or
    /// `leaderJitterSlots`) shrinks to this many slots while the channel utilisation
    /// (`MeshRouter.channelUtilisation`) is at or below `jitterUtilisationLow`, is drawn in full
    /// at or above `jitterUtilisationHigh`, and in between grows linearly
    /// (``relayJitterSlots(_:utilisation:)``); `nil` = always in full.
    public var quietJitterSlots: Int?
    /// The same for the rank step: `slotsPerRank` shrinks to this many slots on a quiet
    /// channel, by the same two utilisations; `nil` = always `slotsPerRank`.
    public var quietSlotsPerRank: Int?
    public var jitterUtilisationLow = 0.20
    public var jitterUtilisationHigh = 0.40
    /// Relay jitter by the first copy's SNR, as Meshtastic weights its contention window
    /// (`getCWsize`: −20…10 dB): a box that heard the packet weakly (far from its sender, so
    /// likely to reach new boxes) draws from a shorter window. The window shrinks
    /// geometrically from the full jitter at `snrJitterHighDb` and above to this share of it
    /// at `snrJitterLowDb` and below (``snrScaledJitterSlots(_:snr:)``); `nil` (or 1) = no
    /// weighting. On by default since issue 19: in the simulator it cut the median latency by
    /// 0.3–1.8 s at 10–50 boxes (30 boxes under load: 8.3 → 6.5 s), with reach, frames and
    /// repair within the seed sets' spread; it gives up about a point of one-shot reach under
    /// load at 20–30 boxes (docs/mesh-simulation.md, "Relay jitter by SNR").
    public var snrJitterFloorShare: Double? = 0.125
    public var snrJitterLowDb = -20.0
    public var snrJitterHighDb = 10.0
    /// The SNR weighting never shrinks a window below this many slots (nor widens one): two
    /// boxes that heard the packet about equally weakly would otherwise collide (without it,
    /// a four-box line in the simulator had 731 collisions in 30 runs instead of 530).
    public var snrJitterMinSlots = 16
    /// A link counts as "covering" a neighbour only at or above this quality bucket (0…3).
    public var minimumCoverBucket: UInt8
    /// After the origin transmits, how long it waits for a neighbour's relay (the implicit
    /// ack) before retransmitting once (relays: `relayImplicitAckTimeout`).
    public var implicitAckTimeout: Duration
    /// Whether relays (not only origins) retry once without an implicit ack, whatever the
    /// channel. Off by default: on a quiet channel it buys almost nothing for more frames
    /// (see `retryRelaysWhenBusy`).
    public var retryRelays: Bool
    /// Relays retry once without an implicit ack while the channel is busy
    /// (`MeshRouter.channelBusy` when the relay goes out), where collisions are what loses
    /// copies. Off by default: in the simulator it buys reach with frames at the rate every
    /// other knob does (30 boxes under Meshtasticator's load: one-shot reach 0.798 → 0.833 for
    /// 10.2 → 14.1 data frames per broadcast, seeds 7301…7330), while issue 19 asks for more
    /// reach with fewer frames (docs/mesh-simulation.md, "Buying reach with frames").
    public var retryRelaysWhenBusy = false
    /// How long a relay waits for its implicit ack before its retry. Longer than the longest
    /// delay a neighbour plans for its own relay (`rankCap − 1` rank steps and the full
    /// jitter: 144 slots, 11.1 s at LongFast) plus a frame and some queueing, so a retry does
    /// not go out while the neighbour's relay is still pending — it would cancel it as a copy.
    public var relayImplicitAckTimeout: Duration = .seconds(16)
    /// The implicit-ack retry waits its timeout (``implicitAckTimeout``, ``relayImplicitAckTimeout``)
    /// plus a random share of it of up to this, drawn for each packet (from a stream of the
    /// router's own, so its other draws stay as they were). Two origins hidden from each other
    /// whose broadcasts collided at the box between them retried 8 s later, together again, and
    /// collided again: on the real daemons' three-box line with the topology plan, A's and C's
    /// broadcasts went 47 ms apart, their retries 8.00 and 8.08 s after, and B had neither
    /// (issue 19, 2026-12-08). 0: the exact timeout (the rule before).
    public var implicitAckRetryJitter = 0.5
    /// A relay of another box's data that finds the channel busy when its turn comes waits its
    /// planned delay again, drawn afresh (``MeshRouter/busyRedrawDelay(for:now:)``: the same rank
    /// steps, a new draw of its jitter), as Meshtastic's firmware re-draws its SNR-weighted delay,
    /// instead of the caller's listen before talk looking again 1…4 slots later. Only the
    /// simulator reads it (`SimParameters.relaysRedrawWhenBusy`, `--relays-redraw-when-busy`);
    /// measured and not kept (docs/mesh-simulation.md, "Relays that re-draw their delay on a
    /// busy channel").
    public var redrawRelayDelayWhenBusy = false
    /// With `redrawRelayDelayWhenBusy`: the re-draw's rank step in slots, instead of
    /// ``rankStepSlots(utilisation:)`` (`nil`, the full step; 16 slots, 1.2 s at LongFast). Only
    /// the simulator sets it (`SimParameters.relaysRedrawStepSlots`, `--relays-redraw-step-slots`;
    /// measured, docs/mesh-simulation.md, "Relays that re-draw their delay on a busy channel").
    public var redrawRankStepSlots: Int?
    /// A later piece of a fragmented message is relayed right behind the piece before it — at
    /// the moment planned for that piece — and any piece at once when this box passed another
    /// piece of the message on already, instead of after a delay of its own (`false`, the rule
    /// before). Its sender sends the pieces back to back and every box that hears one stays
    /// quiet for the rest, which was true of a relay's pieces only by chance: each drew its own
    /// delay and its own place among the relays, so a bottle's two pieces crossed a relay seconds apart, often by different boxes. Back to
    /// back, the origin can tell a piece its relay lacks: it heard the others passed on and
    /// not this one (`MeshNodeMachine.Settings.missingPiecesResent`; docs/mesh.md, "Missing
    /// pieces"). Unfragmented messages — all the simulator's — are not touched.
    public var relayPiecesTogether = true
    /// Also cancel a planned relay once this many copies were overheard, even if some
    /// neighbours look uncovered (counter-based suppression on top of coverage); 0 = off.
    /// Default 2 copies with at most 1 neighbour uncovered: in the simulator this cut
    /// transmissions ~17 % at 30 boxes for ~1 point of reach (docs/mesh-simulation.md).
    public var cancelAfterCopies: Int
    /// …provided no more than this many neighbours still look uncovered.
    public var cancelWhenUncoveredAtMost: Int
    /// …or no more than this share of our neighbours (rounded down), whichever is larger;
    /// 0 = off. Default 0.25 (a box with 8+ neighbours tolerates 2): over 200 seeds at 30
    /// boxes it cut transmissions ~5 % for −0.2 points of reach (docs/mesh-simulation.md).
    public var cancelWhenUncoveredShare: Double
    /// Apply the counter rule only while the channel is busy (`MeshRouter.channelBusy`, fed
    /// by the driver from a ``ChannelBusyDetector``: frames heard ≥ 10 % of the last 30 s); on
    /// a quiet channel coverage alone decides. On by default since issue 19: at low load it
    /// reached 2–8 points more boxes in the simulator (docs/mesh-simulation.md). A driver
    /// that never sets `channelBusy` gets coverage alone.
    public var cancelAfterCopiesOnlyWhenBusy = true
    /// How long per-packet coverage knowledge is kept (duplicates later than this are
    /// still dropped by the caller's seen-set; they just no longer inform relays).
    public var packetMemory: Duration
    /// Most packets whose coverage is tracked at once (oldest dropped first).
    public var maxTrackedPackets: Int
    /// Relay power control: transmit a relay only as loud as its weakest uncovered
    /// neighbour needs (less interference, fewer redundant receptions). Off by default: in
    /// the simulator it changed nothing measurable (sparse meshes: most relays must reach
    /// a weak link anyway); the daemon ignores `powerDbm` for now.
    public var powerControl: Bool
    /// The radio's full power and its lowest setting, dBm (SX126x: +22 … −9).
    public var maxTxPowerDbm: Int
    public var minTxPowerDbm: Int
    /// SNR at which a frame still decodes (LongFast SF11 ≈ −17.5 dB).
    public var decodeSnrDb: Double
    /// Headroom kept above `decodeSnrDb` at the weakest uncovered neighbour (covers link
    /// asymmetry and fading), dB.
    public var powerMarginDb: Double
    /// How long after it starts the router takes its neighbour table as incomplete and relays
    /// as a fallback (never pruned, cancelled by a copy: ``learningRelaysRanked``,
    /// ``fallbackKeptOnRepeatedCopies``) instead of pruning on coverage; `nil` = one hello
    /// period plus its jitter, time for every neighbour's hello.
    /// A box that restarted knows only the neighbours it heard since: pruning on that table
    /// dropped the relay that the boxes it had not heard yet needed (review finding 8).
    public var neighbourLearningPeriod: Duration?
    /// While learning, a box that knows a neighbour the copies have not covered places its
    /// fallback relay as a box past learning places its relay — by those neighbours, its place
    /// among the neighbours that hold the packet too, the SNR-weighted jitter — instead of
    /// flooding's long random delay (96–288 slots, 7.4–22 s at LongFast), which stays for a box
    /// that knows none (its relay is for neighbours not heard yet). It still never prunes on the
    /// table, and a copy cancels it (see ``fallbackKeptOnRepeatedCopies``). Off: the rule
    /// before (the simulator's `--learning-relays-flooding`). A mesh started together — after a
    /// power cut, a camp switched on in the morning — spends its first hello period learning,
    /// and there flooding's delay was every hop's (docs/mesh-simulation.md, "The first hello
    /// period").
    public var learningRelaysRanked = true
    /// A fallback relay (learning, or nobody known) is cancelled by a copy from a box whose copy
    /// was heard already — the origin's retry 8 s on (`implicitAckTimeout`), which says no relay
    /// reached it — only with this off (the rule before, the simulator's
    /// `--fallback-cancelled-by-any-copy`). Flooding's delay of 7.4–22 s at LongFast outlasts
    /// that retry, and the retry cancelled the first relay of the flood: on the five-box line
    /// switched on together, a broadcast in the first hello period reached its median box after
    /// 75 s instead of 32 s (docs/mesh-simulation.md, "The first hello period").
    public var fallbackKeptOnRepeatedCopies = true
    /// The router's first hello after it starts waits a random time up to this (uniform; zero:
    /// at once, the router model's default). Boxes that start together — the whole mesh back
    /// from a power cut — otherwise send their first hellos, and the node its start digest with
    /// each, in the same moment, where every pair that cannot hear each other collides at the
    /// boxes between them. The daemon waits up to the hello jitter (a tenth of the hello
    /// period: 30 s at 300 s; docs/mesh.md, "Catch-up").
    public var firstHelloSpread: Duration = .zero
    /// With a ``firstHelloSpread``: one more hello after it, a spread after the router started
    /// plus a random time up to another spread, when the neighbour table then holds a box our
    /// first hello did not list (else it is skipped; counted either way). Boxes started together
    /// — a mesh back from a power cut, a camp switched on in the morning — send their first
    /// hellos within one spread, and each lists only the neighbours heard before it went: the
    /// first box's lists nobody. Until the next hellos, a hello period later, a copy from that box
    /// covers only itself, and its neighbours think themselves needed where they are not. The
    /// node sends it with its key (`MeshNodeMachine.sendFollowUpHello(at:)`: a box switched on
    /// after our first hello lacks it; without it until issue 19's session of 2026-12-06). In the
    /// simulator a flood in the first hello period then sent 7–13 % fewer frames under load, for
    /// 1–3 % more airtime where little traffic comes then (docs/mesh-simulation.md, "The
    /// follow-up hello"). `false`: the next hello a hello period after the first (the rule
    /// before, the simulator's `--no-hello-follow-up`).
    public var helloFollowsUpStart = true

    /// The learning period in force (``neighbourLearningPeriod`` or its default).
    public var effectiveNeighbourLearningPeriod: Duration {
        neighbourLearningPeriod ?? helloPeriod + helloJitter
    }

    /// Relays planned on the topology: every box floods a topology advert (its neighbour list)
    /// now and then, every box keeps what it learns in a ``MeshTopology``, and a flood's relays
    /// follow the greedy plan each box computes alike from it (``MeshTopology/relays(from:minimumBucket:)``):
    /// a box in the plan relays after the leader's jitter, whatever it counts as covered; a box
    /// outside it waits ``topologyDeferSteps`` rank steps more before its own coverage rule
    /// decides, so the plan's copies come first and cancel it where they reach. Broadcasts
    /// only (directed frames keep their turn order). Off by default.
    public var topologyPlan = false
    /// Rank steps a box outside the plan waits beyond its usual relay delay.
    public var topologyDeferSteps = 12
    /// Rank steps a box outside the plan waits instead of ``topologyDeferSteps`` while its channel
    /// utilisation (`MeshRouter.channelUtilisation`) is below ``topologyDeferQuietBelow``: on a
    /// quiet channel the plan's copies are not held back by listen before talk, so a lost one is
    /// filled in sooner. `nil` (the default): ``topologyDeferSteps`` whatever the channel.
    public var topologyDeferStepsQuiet: Int?
    /// The utilisation (0…1) below which ``topologyDeferStepsQuiet`` applies.
    public var topologyDeferQuietBelow = 0.10
    /// A link counts in the plan at or above this bucket (`nil` = ``minimumCoverBucket``).
    public var topologyMinimumBucket: UInt8?
    /// A box outside the plan does not fill in for the neighbours the plan reaches through a relay
    /// it cannot hear — it could not have heard that copy — when that relay likely holds the
    /// packet: it hears the origin or a box whose copy we heard (one planned hop), or such a
    /// relay (two, the default), and so on up to this many planned hops; nor for those the origin
    /// reaches when we do not hear the origin. 0: fill in for every neighbour no copy we heard
    /// covered. The fill-in is left for the copies a box can watch (the plan's lost copies among
    /// its own neighbours) and for plans that broke further away. In the simulator one hop cut
    /// the frames 5–9 % at 30–50 boxes for the same reach; two cut another 1–6 % at 20–50 boxes,
    /// in a settled mesh (every box knowing nearly every list) and with the warm-up's lists alike,
    /// for reach within the spread of the seeds under load and up to a point less at low load
    /// (docs/mesh-simulation.md, "Two planned hops of trust").
    public var topologyTrustDepth = 2
    /// With ``topologyPlan``: how many plans each origin's floods take turns over (by packet
    /// id). 1 (the default): one plan, the same relays for every flood from an origin. More:
    /// the others break ties, and gains within ``topologyPlanSlack`` of the best, by an order
    /// of the boxes each variant draws (``MeshTopology/plan(from:minimumBucket:variant:slack:)``),
    /// so the relaying, and the airtime it costs, spreads over boxes about as well placed. Tried
    /// under a 1 % duty cycle, where the boxes that relay most run out of budget first: four
    /// variants moved nothing beyond the spread of the seeds, a slack lost up to 2 points
    /// (docs/mesh-simulation.md, "The planned relays under a 1 % budget"); kept for the simulator.
    public var topologyPlanVariants = 1
    /// With ``topologyPlanVariants`` above 1: a box whose gain (boxes it reaches that nothing
    /// planned before has) is within this many of the best counts as tied with it.
    public var topologyPlanSlack = 0
    /// With ``topologyPlan``: a planned relay handed to the radio this long ago or longer
    /// whose copies heard since cover every neighbour is taken back, as a relay of the
    /// coverage rule always is. Still queued — held by the airtime budget, mostly — it would
    /// go out after the boxes outside the plan have filled in, spend the budget of a box the
    /// plan names again and again, and hold that box's repair behind it: under a 1 % duty
    /// cycle the plan lost up to 7.6 points of connected boxes within 5 minutes to the default
    /// router at 50 boxes, and with the rule at 15 s it holds as many (docs/mesh-simulation.md,
    /// "The planned relays under a 1 % budget"). `nil`: a planned relay goes out whatever
    /// copies come (the rule before).
    public var topologyPlannedRelayLateAfter: Duration? = .seconds(15)
    /// With ``topologyPlannedRelayLateAfter``: a late planned relay still queued is checked
    /// again when the radio is free, before the queue picks a frame, and dropped when the copies
    /// heard so far cover every neighbour (``MeshRouter/takeBackLateRelay(_:now:)``). Without it
    /// only a copy heard after the relay turned late takes it back, and one whose covering copies
    /// all came before goes out when the budget lets it. `false`: the rule before.
    public var topologyPlannedRelayLateCheckedBeforeSending = true
    /// Plan hop by hop, every box over as few hops as the links allow (``MeshTopology/shallowFirst``).
    /// On: in the simulator it brought the plan's median latency at 30 boxes to hop-7 flooding's
    /// and cut it by a quarter at 50, for 2–6 % more frames (docs/mesh-simulation.md).
    public var topologyShallowFirst = true
    /// How often a box floods its topology advert when nothing changed.
    public var topologyPeriod: Duration = .seconds(3 * 3600)
    /// A box floods its advert again when its neighbour list changed, but not sooner than
    /// this after its last one.
    public var topologyMinimumInterval: Duration = .seconds(600)
    /// What brings the advert forward: a box that came into our neighbour table at a bucket the
    /// plan uses (``topologyMinimumBucket``), or one the last advert listed at such a bucket that
    /// left it (expired) — not a neighbour's bucket moving, which the periodic advert carries.
    /// A bucket is the SNR of a neighbour's last hello, and on real radios that moves by a few
    /// dB from hello to hello: with any change counted, a box with a link near a bucket's edge
    /// would flood its advert every ``topologyMinimumInterval`` instead of every
    /// ``topologyPeriod`` (the simulator's links keep their SNR, so it cannot show this).
    /// Off: any change of the list, buckets included.
    public var topologyAdvertsOnPlanChange = true
    /// Plan also on the neighbours' hellos and our own live table (fresher, but other boxes plan
    /// on the adverts alone, so the plans disagree), not only on the adverts every box hears alike.
    public var topologyFromHellos = false
    /// Lists not refreshed for this long are forgotten (`nil` = three ``topologyPeriod``s).
    public var topologyMaxAge: Duration?
    /// Advert repair: a box named at a bucket the plan uses in a list we know, but whose own list
    /// we lack (its advert was lost here, or came before we started), is asked for from the
    /// neighbours once it had time to advertise (``topologyRequestDelay``); a neighbour that
    /// holds its latest advert sends it again as its relay, after a random wait that another
    /// neighbour's answer cuts short, and the boxes that lacked it relay it on as they would the
    /// flood. Without it a lost advert — or one sent before a box started — waits for the box's
    /// next periodic one (``topologyPeriod``, 3 h). With the plan only.
    public var topologyRepair = true
    /// Lists across one-way links (with ``topologyRepair``): while we lack a list we asked for
    /// that only boxes joined to us by no chain of two-way links name
    /// (``MeshTopology/unlistedAcrossOneWayLinks(from:minimumBucket:)``), every advert we hear
    /// counts as planned for us — we relay it once whatever the plan or the copies say — until
    /// our asks for it run out (``topologyRequestAttempts``), and when an ask for such a list
    /// went unanswered, our own advert goes out again after ``topologyMinimumInterval``. Two
    /// patches joined only by one-way links (a box of one hears a box of the other, which does
    /// not hear it, and the other way round elsewhere) otherwise never learn each other's lists:
    /// the box that would have to relay a list across does not know the box that hears it, and
    /// could learn so only from the very list it would carry. A box that does not advertise (an
    /// older build, the plan off) counts as joined both ways to the boxes that hear it: no flood
    /// for it. In the simulator such a mesh went from 0.75 of the lists known, for hours, to
    /// 0.88–0.95 (reach 0.69 → 0.85); over random meshes it cost 2–19 % more advert frames in
    /// the first two hours and moved reach within the seeds' spread (docs/mesh-simulation.md,
    /// "Lists across one-way links").
    public var topologyFloodWhileLacking = true
    /// ``topologyFloodWhileLacking`` only while this box has sent at most this share (0…1) of
    /// its airtime budget's limit over the budget's window (`MeshRouter.budgetUsedShare`, fed
    /// by the node); `nil`: whatever the budget. Where a duty cycle binds, boxes that lacked lists
    /// across one-way links and relayed every advert on the air — and sent their own again —
    /// set off advert storms: in the simulator, 50 boxes at LongFast under a 1 % budget, two of
    /// ten runs spent 670–850 s of airtime on topology frames and kept a quarter of their boxes
    /// within 5 minutes instead of 0.84–0.95 (docs/mesh-simulation.md, "The planned relays
    /// under a 1 % budget"). A quarter: at half the storms still ran on some meshes; at a
    /// quarter they cost about what no flood does, and a box just switched on, which has used
    /// nothing, floods as before. With no limit (the US band) nothing is ever used of it.
    public var topologyFloodBudgetShare: Double? = 0.25
    /// How long after a box is first named we wait for its own advert before asking for it
    /// (`nil`: the learning period plus ``topologyMinimumInterval``, within which a box that
    /// started sends its first advert).
    public var topologyRequestDelay: Duration?
    /// Asks for the same box are this far apart (another box's request for it, whose answer
    /// likely reaches us too, puts ours off as well).
    public var topologyRequestInterval: Duration = .seconds(600)
    /// Asks for one box before we wait a ``topologyPeriod``: a box that does not run the plan
    /// (an older build, or the plan off) never advertises.
    public var topologyRequestAttempts = 3
    /// A neighbour's answer waits a random time up to this.
    public var topologyAnswerJitter: Duration = .seconds(4)
    /// After we answered for a box, requests for it are not answered again for this long
    /// (dropped and counted): a box that asks over and over — a bug, or one in a loop — must not
    /// turn each small request into a flood of adverts from every neighbour. An honest box asks
    /// for the same list only every ``topologyRequestInterval``, and one that heard another's
    /// request holds its own ask back, so what is held off is a box that lost our answer within
    /// this time; it gets the list at its next ask.
    public var topologyAnswerHoldoff: Duration = .seconds(300)

    /// The wait before asking for a box's advert in force (``topologyRequestDelay`` or its default).
    public var effectiveTopologyRequestDelay: Duration {
        topologyRequestDelay ?? effectiveNeighbourLearningPeriod + topologyMinimumInterval
    }

    /// Topology adverts paced by the hello period, as the daemon runs them: one every 36 hello
    /// periods when nothing changed (3 h at the standard 300 s, 9 h at a 1 % sub-band's 900 s)
    /// and, after a change, not sooner than 2 hello periods after the last (10 min at 300 s);
    /// advert repair asks again every 2 hello periods and answers for the same box at most once
    /// a hello period.
    /// A mesh whose hellos are slowed for the duty cycle slows its adverts alike; a test mesh
    /// with 3-second hellos learns its topology in seconds.
    public mutating func paceTopology(byHelloPeriod period: Duration) {
        topologyPeriod = period * 36
        topologyMinimumInterval = period * 2
        topologyRequestInterval = period * 2
        topologyAnswerHoldoff = period
    }

    /// Colliding short ids: a neighbour is taken as a copy's possible transmitter only if
    /// the copy's SNR is within this many dB of the SNR of its hellos (data at full power,
    /// so without `powerControl`); `nil` turns the check off.
    public var transmitterSnrToleranceDb: Double? = 10

    public init(
        helloPeriod: Duration = .seconds(300), helloJitter: Duration = .seconds(30),
        missedHellosBeforeExpiry: Int = 3, slot: Duration = .milliseconds(77),
        jitterSlots: Int = 64, slotsPerRank: Int = 16, rankCap: Int = 6,
        minimumCoverBucket: UInt8 = 1, implicitAckTimeout: Duration = .seconds(8), retryRelays: Bool = false, cancelAfterCopies: Int = 2, cancelWhenUncoveredAtMost: Int = 1, cancelWhenUncoveredShare: Double = 0.25,
        packetMemory: Duration = .seconds(600), maxTrackedPackets: Int = 512,
        powerControl: Bool = false, maxTxPowerDbm: Int = 22, minTxPowerDbm: Int = -9,
        decodeSnrDb: Double = -17.5, powerMarginDb: Double = 8, neighbourLearningPeriod: Duration? = nil
    ) {
        self.neighbourLearningPeriod = neighbourLearningPeriod
        self.powerControl = powerControl
        self.maxTxPowerDbm = maxTxPowerDbm
        self.minTxPowerDbm = minTxPowerDbm
        self.decodeSnrDb = decodeSnrDb
        self.powerMarginDb = powerMarginDb
        self.helloPeriod = helloPeriod
        self.helloJitter = helloJitter
        self.missedHellosBeforeExpiry = missedHellosBeforeExpiry
        self.slot = slot
        self.jitterSlots = jitterSlots
        self.slotsPerRank = slotsPerRank
        self.rankCap = rankCap
        self.minimumCoverBucket = minimumCoverBucket
        self.implicitAckTimeout = implicitAckTimeout
        self.retryRelays = retryRelays
        self.cancelAfterCopies = cancelAfterCopies
        self.cancelWhenUncoveredAtMost = cancelWhenUncoveredAtMost
        self.cancelWhenUncoveredShare = cancelWhenUncoveredShare
        self.packetMemory = packetMemory
        self.maxTrackedPackets = maxTrackedPackets
    }

    /// The jitter slots a relay draws from (0…result) at channel `utilisation` (0…1), `full`
    /// being its jitter on a loaded channel (see ``quietJitterSlots``).
    public func relayJitterSlots(_ full: Int, utilisation: Double) -> Int {
        loadScaled(full, quiet: quietJitterSlots, utilisation: utilisation)
    }

    /// The jitter slots a relay draws from when it heard its first copy at `snr` dB (see
    /// ``snrJitterFloorShare``).
    public func snrScaledJitterSlots(_ slots: Int, snr: Double) -> Int {
        guard let floor = snrJitterFloorShare, floor > 0, floor < 1, snrJitterHighDb > snrJitterLowDb else { return slots }
        let position = (min(max(snr, snrJitterLowDb), snrJitterHighDb) - snrJitterLowDb) / (snrJitterHighDb - snrJitterLowDb)
        return max(min(slots, snrJitterMinSlots), Int((Double(slots) * pow(floor, 1 - position)).rounded()))
    }

    /// The slots of one rank step at channel `utilisation` (see ``quietSlotsPerRank``).
    public func rankStepSlots(utilisation: Double) -> Int {
        loadScaled(slotsPerRank, quiet: quietSlotsPerRank, utilisation: utilisation)
    }

    /// The rank steps a box outside the plan defers at channel `utilisation` (see
    /// ``topologyDeferStepsQuiet``).
    public func topologyDeferral(utilisation: Double) -> Int {
        guard let quiet = topologyDeferStepsQuiet, utilisation < topologyDeferQuietBelow else { return topologyDeferSteps }
        return max(0, quiet)
    }

    /// `quiet` slots at or below `jitterUtilisationLow`, `full` at or above
    /// `jitterUtilisationHigh`, linear between; `full` when `quiet` is `nil` or not shorter.
    private func loadScaled(_ full: Int, quiet: Int?, utilisation: Double) -> Int {
        guard let quiet, quiet < full else { return full }
        let low = jitterUtilisationLow, high = max(jitterUtilisationLow, jitterUtilisationHigh)
        if utilisation >= high { return full }
        if utilisation <= low { return max(0, quiet) }
        let share = (utilisation - low) / (high - low)
        return max(0, quiet) + Int((Double(full - max(0, quiet)) * share).rounded())
    }

    /// Whether any rule reads `MeshRouter.channelBusy` or `channelUtilisation`, so a driver must
    /// feed them (the simulator skips the busy detector's work otherwise). A rule that reads
    /// either belongs here.
    public var readsChannelLoad: Bool {
        cancelAfterCopiesOnlyWhenBusy || retryRelaysWhenBusy || quietJitterSlots != nil || quietSlotsPerRank != nil
            || busyLeaderJitterSlots != nil || busyJitterSlots != nil || clearLeaderOnlyWhenBusy
            || (topologyPlan && topologyDeferStepsQuiet != nil)
    }

    /// The daemon's defaults.
    public static let standard = MeshRouterConfiguration()

    /// The hello period a box uses when the configuration leaves it out
    /// (`mesh.hello_interval_s`), from the duty cycle of its channel's sub-band (0…1; `nil`
    /// where there is none): 300 s, or where that would spend more than about a tenth of the
    /// budget on hellos (a hello is about 0.9 s at LongFast), 9 s ÷ the duty cycle — 900 s at
    /// 1 %, 9 000 s at 0.1 %. In a 1 % sub-band (an E22 box at 868.125 MHz) a mesh of 20–50
    /// boxes at one message per box every 33 minutes used up every box's budget with hellos
    /// every 300 s, and messages queued for minutes; with 900 s connected boxes holding a
    /// broadcast within 5 minutes rose from 0.76 to 0.90 at 20 boxes (docs/mesh-simulation.md,
    /// "Each box's airtime and the duty cycle"). Every box of a mesh shares the channel, so
    /// they all pick the same period.
    public static func helloPeriod(dutyCycle: Double?) -> Duration {
        DutyCyclePolicy.period(standard: .seconds(300), seconds: 9, dutyCycle: dutyCycle)
    }
}
