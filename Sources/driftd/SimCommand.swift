import ArgumentParser
import DriftDaemon
import DriftMesh
import DriftMeshSim
import Foundation
import Hardware

/// `driftd sim …`: simulations that run without hardware.
struct SimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim",
        abstract: "Run simulations (the LoRa mesh: our router against Meshtastic's managed flooding).",
        subcommands: [Mesh.self, E22.self])
}

extension SimCommand {
    /// `driftd sim mesh --nodes N --seed S [--router ours|meshtastic|both] [--messages M] [--seeds K] [--json]`.
    struct Mesh: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mesh",
            abstract: "Deterministic discrete-event LoRa mesh simulation (docs/mesh-simulation.md).",
            discussion: """
                With --json, one JSON object per run and line. With --seeds K, runs seeds S…S+K−1 \
                and (without --json) prints the mean of each figure per router.
                """)

        @Option(help: "Number of boxes (2…200).")
        var nodes = 10

        @Option(help: "Seed of the first run.")
        var seed: UInt64 = 1

        @Option(help: "Number of consecutive seeds to run.")
        var seeds = 1

        @Option(help: "Non-zero: the same topologies and messages, other random draws for channel access, relay jitter and the boxes' routers — how much of a per-seed difference is chance.")
        var dynamicsSeed: UInt64 = 0

        @Option(help: "ours, meshtastic or both.")
        var router = "both"

        @Option(help: "Broadcasts per run.")
        var messages = 20

        @Option(help: "Hop limit for our router.")
        var hopLimit: UInt8 = 7

        @Option(help: "Hop limit for the Meshtastic baseline (its default 3; the firmware allows 7).")
        var baselineHopLimit: UInt8 = 3

        @Option(help: "Side of the square area, metres (Meshtasticator: 15000).")
        var area = 15_000.0

        @Option(help: "Our router: cancel a planned relay after this many overheard copies (0 = coverage only; default 2).")
        var cancelAfterCopies: Int?

        @Option(help: "…only while at most this many neighbours look uncovered (default 1).")
        var cancelUncoveredAtMost: Int?

        @Option(help: "Our router: random jitter slots of a relay that some neighbour goes before (default 64).")
        var jitterSlots: Int?

        @Option(help: "Our router: delay slots per better-placed neighbour (with --own-rank-order: per missing uncovered neighbour below the rank cap; default 16).")
        var slotsPerRank: Int?

        @Option(help: "Our router: relay-delay and back-off slot, ms (default: the modulation's, LoRaModulation.slot).")
        var slotMs: Double?

        @Option(help: "Our router: a relay waits at most this many steps less one (with --own-rank-order: the uncovered-neighbour count that gets the shortest delay; default 6).")
        var rankCap: Int?

        @Flag(help: "Our router: order relays by own uncovered count, not by place among the neighbours that hold the packet too (the default before issue 19's latency work).")
        var ownRankOrder = false

        @Option(help: "Our router: jitter slots of a relay that no known neighbour goes before (default 32).")
        var leaderJitterSlots: Int?

        @Option(help: "Our router: jitter slots of a relay that no known neighbour goes before, while the channel is busy (default: --leader-jitter-slots).")
        var busyLeaderJitterSlots: Int?

        @Option(help: "Our router: jitter slots of a leader that no box it does not hear can rival (no box its uncovered neighbours list outside its table is listed by the copy's transmitter too; default: no such rule).")
        var clearLeaderJitterSlots: Int?

        @Flag(help: "With --clear-leader-jitter-slots: only while the channel is busy.")
        var clearLeaderOnlyWhenBusy = false

        @Option(help: "Our router: jitter slots of the other relays while the channel is busy (default: --jitter-slots).")
        var busyJitterSlots: Int?

        @Flag(help: "Our router: relays for a destination among their neighbours all go first, not in turn among the neighbours that hold the packet and hear the destination too (the rule before issue 19's last session).")
        var noDestinationRelayOrder = false

        @Flag(help: "Our router: a neighbour stays in the table only while its hellos come, not while its other frames do (the rule before).")
        var neighboursKeptByHellosOnly = false

        @Option(help: "Our router: jitter slots of every relay while the channel utilisation (frames heard in the last 30 s) is at most --jitter-utilisation-low, growing linearly to the full jitter at --jitter-utilisation-high (default: always the full jitter).")
        var quietJitterSlots: Int?

        @Option(help: "Our router: delay slots per rank step while the channel utilisation is at most --jitter-utilisation-low, growing linearly to --slots-per-rank at --jitter-utilisation-high (default: always --slots-per-rank).")
        var quietSlotsPerRank: Int?

        @Option(help: "With --quiet-jitter-slots: utilisation (0…1) up to which relays draw the quiet jitter (default 0.20).")
        var jitterUtilisationLow: Double?

        @Option(help: "With --quiet-jitter-slots: utilisation (0…1) from which relays draw their full jitter (default 0.40).")
        var jitterUtilisationHigh: Double?

        @Option(help: "Our router: relay jitter by the first copy's SNR: the window shrinks geometrically from the full jitter at 10 dB to this share (0…1) of it at −20 dB (default 0.125; 1 = no weighting).")
        var snrJitterFloor: Double?

        @Option(help: "Our router: the SNR weighting never shrinks a relay's jitter window below this many slots (default 16).")
        var snrJitterMinSlots: Int?

        @Option(help: "Our router: lowest link bucket (0…3) that counts as covering a neighbour (default 1).")
        var minCoverBucket: UInt8?

        @Flag(help: "Our router: relays too retry once when no implicit ack is heard, on a quiet channel too.")
        var retryRelays = false

        @Flag(help: "Our router: relays retry once when no implicit ack is heard, while the channel is busy (off by default: reach bought with frames, docs/mesh-simulation.md).")
        var busyRelayRetries = false

        @Option(help: "Our router: how long a relay waits for its implicit ack before its retry, ms (default 16000).")
        var relayImplicitAckMs: Int?

        @Flag(help: "Our router: relays planned on the topology — every box floods its neighbour list now and then, and a flood's relays follow the greedy plan every box computes alike from what it learnt (docs/mesh-simulation.md).")
        var topologyPlan = false

        @Option(help: "With --topology-plan: rank steps a box outside the plan waits beyond its usual delay (default 12).")
        var topologyDeferSteps: Int?

        @Option(help: "With --topology-plan: rank steps a box outside the plan waits instead while its channel utilisation is below --topology-defer-quiet-below (default: unset, --topology-defer-steps whatever the channel).")
        var topologyDeferStepsQuiet: Int?

        @Option(help: "With --topology-defer-steps-quiet: the channel utilisation (0…1) below which it applies (default 0.10).")
        var topologyDeferQuietBelow: Double?

        @Option(help: "With --topology-plan: how many plans each origin's floods take turns over, by packet id (default 1: the same relays for every flood; more spread the relaying over boxes about as well placed).")
        var topologyPlanVariants: Int?

        @Option(help: "With --topology-plan-variants above 1: a box whose gain is within this many boxes of the best counts as tied with it (default 0).")
        var topologyPlanSlack: Int?

        @Option(help: "With --topology-plan: a planned relay handed to the radio this many seconds ago or longer, still queued, is taken back when copies heard since cover every neighbour (default 15).")
        var topologyPlannedRelayLateS: Double?

        @Flag(help: "With --topology-plan: a planned relay goes out whatever copies come, however late (the rule before --topology-planned-relay-late-s).")
        var noTopologyPlannedRelayLate = false

        @Flag(help: "With --topology-plan: a late planned relay still queued is taken back only by a copy heard after it turned late, not also when the radio is free (the rule before).")
        var noTopologyPlannedRelayLateCheck = false

        @Option(help: "With --topology-plan: planned hops beyond a copy it heard that a relay it cannot hear is trusted to hold the packet, so a box outside the plan leaves that relay's neighbours to it (default 2; 0: fill in for every neighbour no heard copy covered).")
        var topologyTrustDepth: Int?

        @Flag(inversion: .prefixedNo, help: "With --topology-plan: plan hop by hop, every box over as few hops as the links allow (default; --no-topology-shallow-first: the plain greedy plan, bigger gains first).")
        var topologyShallowFirst: Bool?

        @Flag(inversion: .prefixedNo, help: "With --topology-plan: advert repair — a box asks its neighbours for the adverts of boxes it knows of but lacks the lists of, and a neighbour that holds one sends it again (default with --warm-up-at-daemon-pace; in the quick warm-up only when asked, since it would fall among the measured messages; --no-topology-repair: a lost advert waits for the next periodic one).")
        var topologyRepair: Bool?

        @Option(help: "With --topology-plan: this many boxes run this build with the plan off: no adverts, no plan, but they relay the others' adverts (default 0; an older build: --boxes-of-older-build).")
        var boxesWithoutPlan: Int?

        @Option(help: "With --topology-plan: this many boxes run a build from before the plan: plan off, and topology adverts (frame kind 6) dropped as of an unknown kind, neither learnt nor relayed (default 0).")
        var boxesOfOlderBuild: Int?

        @Flag(help: "With --boxes-of-older-build K: the older boxes are one area — a box and the K - 1 boxes nearest to it — instead of boxes scattered at random.")
        var olderBuildClustered = false

        @Flag(inversion: .prefixedNo, help: "With --topology-plan: while a box lacks a list it asked for that only boxes joined to it one way name, it relays every advert it hears, and an unanswered ask sends its own advert again, so lists cross one-way links (default; --no-topology-flood-while-lacking: adverts follow the plan alone).")
        var topologyFloodWhileLacking: Bool?

        @Option(help: "With --topology-plan and --node-machine: a box floods adverts for a list lacked across one-way links only while it has sent at most this share (0…1) of its airtime budget in the last hour (default 0.25; only a duty cycle limits the budget).")
        var topologyFloodBudgetShare: Double?

        @Flag(help: "With --topology-plan: flood adverts for lacked lists whatever the budget (the rule before issue 19's session of 2026-12-07).")
        var noTopologyFloodBudgetShare = false

        @Flag(inversion: .prefixedNo, help: "With --topology-plan: a box's advert comes sooner only when a link the plan uses came or went (default; --no-topology-adverts-on-plan-change: also when a neighbour's bucket moved).")
        var topologyAdvertsOnPlanChange: Bool?

        @Option(help: "With --topology-plan: seconds before the first message at which the warm-up's advert pace ends, so its floods have died down (default 240; 0: adverts every --warm-up-topology-period up to the first message).")
        var topologyQuietS: Int?

        @Flag(help: "With --topology-plan: plan on the neighbours' hellos and the box's own table too, not only on the adverts every box hears alike.")
        var topologyFromHellos = false

        @Option(help: "With --topology-plan: lowest link bucket (0…3) that counts in the plan (default: --min-cover-bucket).")
        var topologyMinBucket: UInt8?

        @Option(help: "Our router: length of the warm-up before the first message, seconds (default 600).")
        var warmUpS: Int?

        @Option(help: "With --topology-plan: seconds between a box's topology adverts during the warm-up (default 240; after it, the daemon's 3 hours).")
        var warmUpTopologyPeriod: Int?

        @Flag(help: "Our router: the daemon's hello and advert pace from the start, as in the field (default: the warm-up's 120 s hellos and, with --topology-plan, adverts every --warm-up-topology-period until --topology-quiet-s before the first message).")
        var warmUpAtDaemonPace = false

        @Option(help: "Our router: each box starts at its own moment, uniform over this many seconds from the start of the run (at most the warm-up), hearing nothing before: independent hello, advert and repair-timer phases (default: all within the first hello period).")
        var startSpreadS: Int?

        @Flag(help: "Our router: relay power control (off by default: no measurable gain, docs/mesh-simulation.md).")
        var powerControl = false

        @Option(help: "Our router: power-control headroom above the decoding SNR at the weakest uncovered neighbour, dB (default 8).")
        var powerMargin: Double?

        @Option(help: "Mean seconds between messages of one box (Meshtasticator: 100). A scenario variation for extra rows only.")
        var period = 100

        @Option(help: "Messages in bursts (a festival's load): every this many seconds from the first message, that span's messages come within its first --burst-length-s — the same messages and mean rate, bunched (default: the flat rate).")
        var burstEveryS: Int?

        @Option(help: "With --burst-every-s: how long each burst lasts, seconds (above 0, at most --burst-every-s).")
        var burstLengthS: Int?

        @Option(help: "…or at most this share of its neighbours, whichever is larger (0 = off).")
        var cancelUncoveredShare: Double?

        @Flag(help: "Diagnostic: an ideal channel, every frame above the sensitivity decoded (no collisions, no half-duplex loss).")
        var collisionFree = false

        @Flag(help: "One JSON object per run.")
        var json = false

        @Flag(help: "Print each run's links and message origins as JSON lines (input of tools/mesh-optimum/make_optimum.py) instead of running it.")
        var exportTopology = false

        @Option(help: "Exact-optimum data from tools/mesh-optimum (e.g. Tests/DriftMeshSimTests/Resources/mesh-optimum.json): adds the optimum fields for the runs it holds.")
        var optimum: String?

        @Option(help: "Repair: Trickle Imin, seconds (default 30).")
        var repairImin: Int?

        @Option(help: "Repair: Trickle doublings from Imin to Imax (default 4; the node's paced repair with --node-machine: 3, the daemon's).")
        var repairDoublings: Int?

        @Option(help: "Repair: Trickle redundancy k (default 1; the node's paced repair with --node-machine: 3, the daemon's).")
        var repairRedundancy: Int?

        @Option(help: "Repair: a box sends a packet a digest lacks after a random 0…MS ms (default 4000).")
        var repairJitter: Int?

        @Option(help: "Repair: send no digest and no repair until this many ms after the box last got a packet from the flood (default 30000; 0 = no hold-off).")
        var repairHoldOff: Int?

        @Option(help: "Repair: a box answers a digest only for packets it has held this many seconds (default 20).")
        var repairSettle: Int?

        @Flag(help: "Our router: the copy counter cancels relays only while the channel is busy (the default since issue 19; accepted so older commands still run).")
        var cancelOnlyWhenBusy = false

        @Flag(help: "Our router: the copy counter cancels relays whatever the channel (the default before issue 19's busy feed).")
        var cancelAlways = false

        @Option(help: "…busy meaning this share of the last 30 s heard on air (default 0.10).")
        var busyUtilisation: Double?

        @Flag(help: "Repair: reset the Trickle timer on every new packet.")
        var repairResetOnNew = false

        @Option(help: "Our boxes' frames: this many preamble symbols (the baseline keeps LongFast's 16; the E22 module sends 8).")
        var preamble: Int?

        @Option(help: "Our boxes on an E22 module at this air rate, kbit/s (0.3, 1.2, 2.4, 4.8, 9.6, 19.2, 38.4, 62.5): its LoRa modulation as the daemon takes it (docs/e22.md, 8-symbol preamble) and the sensitivity that goes with it; needs --router ours. Default: LongFast.")
        var airRateKbps: Double?

        @Option(help: "Every box's transmit power, dBm (default 30, Meshtasticator's US limit; Drift Box boards: 14, which the E22 sends as 13).")
        var txPowerDbm: Double?

        @Option(help: "Carrier, MHz (default 908.75, Meshtasticator's US channel; the E22 boards in the EU: 868.125).")
        var frequencyMhz: Double?

        @Flag(inversion: .prefixedNo, help: "Our boxes listen before they talk (the daemon on radios that report a carrier). --no-carrier-sense: they transmit when their turn comes, as E22 boxes do (the module reports no carrier).")
        var carrierSense = true

        @Flag(inversion: .prefixedNo, help: "With carrier sense, our boxes hold a frame that comes ready less than a slot after a frame they sensed ended for 1…8 slots, as the daemon does (radioQuietWaits), unless it relays another box's data. --no-quiet-back-off: it starts at once (the daemon before issue 19's eighth session).")
        var quietBackOff = true

        @Flag(help: "With the quiet back-off: relays of other boxes' data wait too (the daemon's rule of issue 19's eighth session).")
        var quietBackOffRelays = false

        @Flag(help: "With carrier sense, our boxes on a busy channel wait until the frames they sense end and then 1…8 slots (the daemon's listen before talk until 2026-12-06), instead of looking again 1…8 slots later however long those frames last.")
        var listenBeforeTalkWaitsForEnd = false

        @Flag(help: "With carrier sense: only relays of other boxes' data wait for the frame's end and then 1…8 slots on a busy channel (measured, not kept).")
        var relaysWaitForEnd = false

        @Flag(help: "With carrier sense, our router (not --node-machine): a relay of another box's data that finds the channel busy waits its planned delay again, drawn afresh (the same rank steps, a new draw of its jitter), as Meshtastic re-draws its weighted delay, instead of looking again 1…4 slots later (measured, not kept).")
        var relaysRedrawWhenBusy = false

        @Option(help: "With --relays-redraw-when-busy: the re-draw's rank step in slots, 1…64 (default: the full rank step, 16 slots at LongFast; an experiment).")
        var relaysRedrawStepSlots: Int?

        @Option(help: "With carrier sense, our boxes draw their looks on a busy channel and the quiet back-off from 1…N slots (default 4, as the daemon; 8: the daemon's rule until 2026-12-06).")
        var lookSlots: Int?

        @Option(help: "With carrier sense, our boxes draw the quiet back-off alone from 1…N slots (default: --look-slots; an experiment).")
        var quietBackOffSlots: Int?

        @Option(help: "Our boxes sense only frames at or above this power, dBm (energy detection, e.g. by reading the channel's RSSI) instead of channel-activity detection.")
        var carrierSenseDbm: Double?

        @Flag(help: "With --router both: latency at equal reach — over the deliveries both routers made on a seed, each one's median (pairedLatencyP50Ms, pairedDeliveries).")
        var pairedLatency = false

        @Flag(help: "No repair (our router's one-shot flood only).")
        var noRepair = false

        @Flag(inversion: .prefixedNo, help: "With --node-machine: every node runs paced repair, as the daemon does by default (`mesh.paced_repair`; Trickle-timed compact digests; --repair-imin, --repair-doublings, --repair-redundancy).")
        var nodeRepair = true

        @Flag(help: "With --node-machine: a neighbour heard again after two hello periods without a hello gets the full digest even when its compact digest came meanwhile (the node's rule before issue 19's last session; default: left to paced repair).")
        var digestNeighboursInRepair = false

        @Flag(help: "With --node-machine: the full digest's repeat three hello periods after a neighbour was heard again goes out even when every neighbour it was for sent a compact digest since (the node's rule before issue 19's session of 2026-12-06; default: left to paced repair).")
        var digestRepeatsForNeighboursInRepair = false

        @Flag(help: "With --node-machine: a node whose repair timer fires while it counts no live neighbour sends its compact digest anyway (the rule before; default: left out, counted in digestsAlone).")
        var digestsWhileAlone = false

        @Option(help: "With --node-machine in a duty-cycled band (--duty-cycle): a box that has sent more than this share (above 0, at most 1) of its airtime budget's limit over the last hour doubles its repair interval once more (twice Imax: 8 minutes by default; default share 0.5, the daemon's).")
        var repairLongerAboveBudget: Double?

        @Flag(help: "With --node-machine: the repair interval stays at most 4 minutes however much of its airtime budget a box has used (the rule before).")
        var noRepairLongerAboveBudget = false

        @Flag(help: "With --node-machine: the digest repeated for a returning neighbour and the start digest's follow-ups go out when due, not after a random answer delay (the rule before).")
        var digestRepeatsWhenDue = false

        @Flag(help: "With --node-machine: a full digest that cannot describe every origin held describes the lowest node ids, always (the rule before; default: from a random origin on).")
        var digestOriginsByID = false

        @Flag(help: "With --node-machine: an answer of more than 32 frames sends the first 32 in key order, those already queued included (the rule before; default: those not queued yet, from a random packet on).")
        var answersInKeyOrder = false

        @Flag(help: "With --node-machine: background frames (digests, requests, catch-up copies) also wait while the channel is busy with catch-up traffic (the rule before; default: only while it is busy with the rest).")
        var backgroundYieldsToBackground = false

        @Option(help: "With --node-machine: background frames wait while the channel was busier than this fraction over the last minute (default 0.25, Meshtastic's polite channel use).")
        var backgroundBusyThreshold: Double = 0.25

        @Flag(help: "With --node-machine: every hello waits with the background frames however long the channel stays busy (the rule before; default: a hello still queued when the next is due is replaced by it, at normal priority).")
        var hellosBackgroundOnly = false

        @Flag(help: "Our router: a box in its first hello period (its neighbour table maybe incomplete) relays as flooding, a long random delay (the rule before; default: one that knows an uncovered neighbour places it as a box past learning does; never pruned, cancelled by a copy).")
        var learningRelaysFlooding = false

        @Flag(help: "With --node-machine: a box's second hello comes a hello period after its first (the rule before; default: one more, a first-hello spread after it started plus up to another, when it has heard neighbours its first hello did not list).")
        var noHelloFollowUp = false

        @Flag(help: "With --node-machine: only the origin sends a directed message again (the rule before; default: a box that relayed it to its destination, a neighbour, sends it once more when no acknowledgement is heard in time).")
        var noLastHopRetry = false

        @Flag(help: "With --node-machine: a relay's last-hop retry goes however crowded the channel (default: not while it was busier than 25 % over the last minute).")
        var lastHopRetryWhenBusy = false

        @Option(help: "With --node-machine: how many times at most a relay retries the last hop, waiting for the answer again after each (default 1, the daemon's).")
        var lastHopRetryRounds = 1

        @Option(help: "With --node-machine: how many quick retries a directed message has at most, each waiting for the acknowledgement again, those after the first only while the channel was no busier than 25 % over the last minute (default 2, the daemon's; 1: the rule before).")
        var quickRetryRounds = 2

        @Flag(help: "With --node-machine: the quick retry counts as an outbox attempt, so the next waits 45 s after it (the rule before; default: the outbox's next attempt stays 30 s after the first sending).")
        var quickRetryCountsAsAttempt = false

        @Flag(help: "With --node-machine: the origin of a directed message to a box two hops away waits for the outbox (or the quick retry) when no neighbour was heard passing it on (the rule before; default: it sends the message once more when the slowest neighbour that hears the destination would have passed it on).")
        var noFirstHopRetry = false

        @Flag(help: "With --node-machine: a directed message sent before the way to its destination was known (no neighbour's hello listed it, none of its frames heard) waits for the outbox's schedule (the rule before; default: its first-hop and quick retries are armed once the way is known, timed from the sending).")
        var noRetriesArmedOnceTheWayIsKnown = false

        @Option(help: "Our boxes' implicit-ack retry (an origin that hears no relay of its broadcast sends it once more) waits up to this share of its 8 s longer, drawn at random, so origins hidden from each other do not retry in step (default 0.5, the daemon's; 0: the exact 8 s, the rule before).")
        var implicitAckRetryJitter = 0.5

        @Option(help: "With --node-machine: the first-hop, quick and last-hop retries of a directed message wait up to this share of their wait longer, drawn at random, so boxes hidden from each other do not retry in step (default 0.5, the daemon's; 0: the exact waits, the rule before).")
        var retryJitter = 0.5

        @Option(help: "With --node-machine: the outbox's next attempt waits up to this share of the schedule's delay longer, drawn at random (default 0.25, the daemon's; 0: the exact schedule).")
        var outboxRetryJitter = 0.25

        @Flag(help: "With --node-machine: a box that hears a neighbour's directed frame for a box it does not hear sends its own frames at once, not after that box's acknowledgement (the rule before; default: it keeps them back for the turnaround, the ack and 4 slots).")
        var noQuietForHiddenAnswers = false

        @Flag(help: "With --node-machine: a destination acknowledges again every copy it hears of a directed message it has acknowledged (the rule before; default: only copies that are retries — from the origin, from a box heard with it before, or 15 s or more after its last acknowledgement — and none within the quick-retry margin of it).")
        var acksForEveryCopy = false

        @Flag(help: "With --node-machine: a relay passes a directed message's retry on at once (the rule before; default: after a random delay of up to the router's jitter).")
        var retryRelaysAtOnce = false

        @Flag(help: "With --node-machine: every relay of a directed message passes its retry on (default: one whose destination is not its neighbour drops its copy when it hears another box pass the retry on first).")
        var retryRelaysUnsuppressed = false

        @Flag(help: "Our router: a fallback relay (a box learning its neighbours) is cancelled by any copy, the origin's retry too (the rule before; default: only by a copy from a box not heard with this packet yet).")
        var fallbackCancelledByAnyCopy = false

        @Flag(help: "With --node-machine: a box that got more packets in the last 30 minutes than a compact digest lists (88) lists the newest 88, marked incomplete (the rule before; default: those of the last whole minutes that fit, under that shorter window).")
        var compactDigestNewest = false

        @Flag(help: "With --node-machine: compact digests list 16-bit hashes (the coding before; default: Rice-coded, about 9.6 bits a packet).")
        var compactDigestHashes16 = false

        @Option(help: "With --node-machine: a box whose neighbour's compact digests have listed something it lacks for this many seconds sends its full digest, at most once a hello period (0: never, the rule before; default: the daemon's, 120).")
        var fullDigestWhenLacking: Int?

        @Flag(help: "With --node-machine: a packet a neighbour was sent twice is sent it again only two hello periods after the last, also when its digest shows an earlier answer got there (the rule before; default: once more at once then).")
        var noRepairAnswersRenewedWhenHeard = false

        @Flag(inversion: .prefixedNo, help: "Repair: consistent digests keep a box's own back only when every neighbour that hears it heard one of them (router-only repair and, with --node-machine, the node's paced repair; default: on in the node, as the daemon, off in the router-only model; --no-…: any k of them, the rule before).")
        var repairSuppressionCoversNeighbours: Bool?

        @Option(help: "Our boxes' hello period after the warm-up, seconds (the daemon's `mesh.hello_interval_s`; default 300, or with --duty-cycle what the daemon picks for it: 900 at 1 %).")
        var helloPeriod: Int?

        @Option(help: "With --node-machine: every box's airtime budget allows this percentage of any hour, as in a duty-cycled sub-band (EU868 868.0–868.6 MHz: 1; default: no limit).")
        var dutyCycle: Double?

        @Flag(help: "Repair: answer every digest, also from a box whose hello says it does not hear the answerer, and the same packet to the same box again and again (the router-only repair before it followed the daemon's node).")
        var repairAnswersUnbounded = false

        @Flag(help: "Repair: a box that gets a packet as a repair does not relay it on.")
        var noRepairRelays = false

        @Flag(inversion: .prefixedNo, help: "Repair: a box that learnt it lacks something sends its next digest however many consistent ones it hears first (router-only repair and, with --node-machine, the node's paced repair; default: each one's own).")
        var repairLackingUnsuppressed: Bool?

        @Flag(help: "Repair: full digests (per-origin runs of everything held) instead of 16-bit hashes of what a box got in the last 30 minutes.")
        var repairFullDigests = false

        @Flag(help: "Review reproduction: the old baseline that lets a relay whose delay ran out on a busy channel go out despite a duplicate.")
        var oldBaselineQueue = false

        @Flag(help: "Review reproduction: the simulator before issue 19 (old baseline MAC and slot, σ 2 dB, collision-free ids; add --old-baseline-queue for finding 1).")
        var legacyModel = false

        @Flag(help: "Review reproduction: the old node ids whose low bytes never collide.")
        var sequentialIds = false

        @Option(help: "Standard deviation of the per-direction link offset, dB (default 3, Meshtasticator).")
        var linkSigma: Double?

        @Flag(help: "Calibration: the baseline with Meshtasticator's MAC, slot, retransmissions and random channel interference.")
        var meshtasticatorScenario = false

        @Flag(help: "Our boxes run the daemon's whole node (MeshNodeMachine: sealed frames, seen-set, outbox, retries, acks, catch-up, quiet rule) instead of the router alone.")
        var nodeMachine = false

        @Option(help: "With --node-machine: share of messages sent to one other box (acknowledged, retried) instead of to all (default 0).")
        var directedShare = 0.0

        @Option(help: "With --node-machine: this many boxes, drawn by the seed, are switched off at the end of the warm-up and come back after --outage-minutes as the daemon restarts; prints what they lacked on return and how much of it they got within 5 minutes.")
        var outageBoxes = 0

        @Option(help: "With --outage-boxes: how long they stay off, minutes (the default is over two hello periods).")
        var outageMinutes = 12

        @Option(help: "Minutes the run goes on after the last message (and after the last box is back from an outage), at least the 5-minute repair window with repair (default: 2, and the window).")
        var drainMinutes: Int?

        @Option(help: "With --outage-boxes: they go off this many seconds after the first message (default 0: before it). With --outage-boxes equal to --nodes, a power cut of the whole mesh in the middle of its traffic.")
        var outageFromSeconds = 0

        @Flag(help: "With --node-machine: a packet a neighbour asks for again (a request, or a full digest that lacks it again) is taken back by a copy heard first, as its first answer (the node's rule before issue 19's outage runs; default: sent whatever is heard).")
        var repeatedRequestsTakenBack = false

        @Flag(help: "With --node-machine: a packet a neighbour's compact digest lacks again is taken back by a copy heard first, as its first answer (the node's rule before issue 19's seed-7317 outage run; default: it counts as asked for again and is sent whatever is heard).")
        var compactLacksTakenBack = false

        @Flag(help: "With --node-machine: a packet a neighbour's full digest or request lacks after another box's catch-up copy of it was heard is taken back by a copy heard first, as a first answer (the node's rule before issue 19's seed-7324 outage run; default: it counts as asked for again).")
        var lacksAfterCopiesTakenBack = false

        @Flag(help: "With --node-machine: a neighbour whose hello lists nobody (it just started) counts as not hearing this box, and its compact digests go unanswered until its next hello (the node's rule before issue 19's seed-7347 outage run; default: they are answered).")
        var justStartedTakenForDeaf = false

        @Flag(help: "With --node-machine: every neighbour heard for the first time (or again after two hello periods) gets a full digest of its own, even when one of ours is on its way or went after the hello of ours it heard (the node's rule before issue 19's restart-storm runs; default: it shares that one).")
        var digestForEachNewNeighbour = false

        @Flag(help: "With --node-machine: only the digest a box sends at its start is followed up when its answers bring something new (the node's rule before issue 19's seed-7317 outage run; default: every full digest it sends within two hello periods of its start).")
        var startDigestOnlyFollowedUp = false

        @Flag(help: "Repair: a packet sent to the same box twice is never sent it again (the rule before; default: once more each time two hello periods have passed since the last answer). In the node's repair and the router-only repair model alike.")
        var repairAnswersNotRenewed = false

        @Option(help: "With --node-machine: how many times in a row a box follows up its start digest (and the digests of its first two hello periods) while their answers bring packets new to it (default: the daemon's, 2).")
        var digestFollowUps: Int?

        @Option(help: "With --node-machine: a box's first hello after it starts (and its start digest) waits a random time up to this many seconds (default: the daemon's, a tenth of the hello period; 0: at once, the rule before).")
        var firstHelloSpreadS: Double?

        func validate() throws {
            guard (2...200).contains(nodes) else { throw ValidationError("--nodes must be 2…200") }
            guard (1...1000).contains(seeds) else { throw ValidationError("--seeds must be 1…1000") }
            guard (0...3_600).contains(firstHelloSpreadS ?? 0) else { throw ValidationError("--first-hello-spread-s must be 0…3600") }
            guard (1...10_000).contains(messages) else { throw ValidationError("--messages must be 1…10000") }
            guard (burstEveryS == nil) == (burstLengthS == nil) else { throw ValidationError("--burst-every-s and --burst-length-s go together") }
            if let every = burstEveryS, let length = burstLengthS {
                guard length > 0, length <= every else { throw ValidationError("--burst-length-s must be above 0 and at most --burst-every-s") }
            }
            guard (0...1).contains(backgroundBusyThreshold) else { throw ValidationError("--background-busy-threshold must be 0…1") }
            guard (1...7).contains(hopLimit), (1...7).contains(baselineHopLimit) else { throw ValidationError("--hop-limit and --baseline-hop-limit must be 1…7") }
            guard area >= 100, area <= 1_000_000 else { throw ValidationError("--area must be 100…1000000") }
            guard (jitterSlots ?? 0) >= 0, (slotsPerRank ?? 0) >= 0 else { throw ValidationError("--jitter-slots and --slots-per-rank must be ≥ 0") }
            guard (quietJitterSlots ?? 0) >= 0, (quietSlotsPerRank ?? 0) >= 0, (0...1).contains(jitterUtilisationLow ?? 0), (0...1).contains(jitterUtilisationHigh ?? 1),
                  (jitterUtilisationLow ?? 0.20) <= (jitterUtilisationHigh ?? 0.40) else {
                throw ValidationError("--quiet-jitter-slots and --quiet-slots-per-rank must be ≥ 0, --jitter-utilisation-low ≤ --jitter-utilisation-high, both 0…1")
            }
            guard snrJitterFloor.map({ $0 > 0 && $0 <= 1 }) ?? true else { throw ValidationError("--snr-jitter-floor must be above 0 and at most 1") }
            guard (0.001...10_000).contains(slotMs ?? 1), (1...64).contains(rankCap ?? 1) else { throw ValidationError("--slot-ms must be 0.001…10000, --rank-cap 1…64") }
            guard (1...1_000_000).contains(period) else { throw ValidationError("--period must be 1…1000000 s") }
            guard (10...86_400).contains(helloPeriod ?? 300) else { throw ValidationError("--hello-period must be 10…86400 s") }
            if let dutyCycle {
                guard dutyCycle > 0, dutyCycle <= 100 else { throw ValidationError("--duty-cycle must be a percentage above 0, at most 100") }
                guard nodeMachine else { throw ValidationError("--duty-cycle needs --node-machine (the daemon's node keeps the airtime budget)") }
            }
            guard kinds != nil else { throw ValidationError("--router must be ours, meshtastic or both") }
            guard (0...1).contains(directedShare) else { throw ValidationError("--directed-share must be 0…1") }
            guard (0...1).contains(retryJitter), (0...1).contains(outboxRetryJitter), (0...1).contains(implicitAckRetryJitter) else {
                throw ValidationError("--retry-jitter, --outbox-retry-jitter and --implicit-ack-retry-jitter must be 0…1")
            }
            guard (1...10).contains(lastHopRetryRounds) else { throw ValidationError("--last-hop-retry-rounds must be 1…10") }
            guard (1...10).contains(quickRetryRounds) else { throw ValidationError("--quick-retry-rounds must be 1…10") }
            guard (6...65_535).contains(preamble ?? 16) else { throw ValidationError("--preamble must be 6…65535 symbols") }
            guard !(cancelOnlyWhenBusy && cancelAlways) else { throw ValidationError("--cancel-only-when-busy and --cancel-always contradict each other") }
            guard directedShare == 0 || nodeMachine else { throw ValidationError("--directed-share needs --node-machine") }
            if let airRateKbps {
                guard E22AirRate(kilobitsPerSecond: airRateKbps) != nil else {
                    throw ValidationError("--air-rate-kbps must be an E22 air rate: 0.3, 1.2, 2.4, 4.8, 9.6, 19.2, 38.4 or 62.5")
                }
                guard router == "ours" else { throw ValidationError("--air-rate-kbps needs --router ours (the baseline runs LongFast)") }
                guard preamble == nil else { throw ValidationError("--air-rate-kbps sets the E22's 8-symbol preamble; leave out --preamble") }
            }
            guard !pairedLatency || (router == "both" && !nodeMachine) else {
                throw ValidationError("--paired-latency needs --router both, without --node-machine")
            }
            guard !quietBackOffRelays || quietBackOff else { throw ValidationError("--quiet-back-off-relays and --no-quiet-back-off contradict each other") }
            guard (1...64).contains(lookSlots ?? 8) else { throw ValidationError("--look-slots must be 1…64") }
            guard !(relaysRedrawWhenBusy && nodeMachine) else { throw ValidationError("--relays-redraw-when-busy is a rule of the router model; leave out --node-machine") }
            guard relaysRedrawStepSlots == nil || relaysRedrawWhenBusy else { throw ValidationError("--relays-redraw-step-slots needs --relays-redraw-when-busy") }
            guard (1...64).contains(relaysRedrawStepSlots ?? 1) else { throw ValidationError("--relays-redraw-step-slots must be 1…64") }
            guard repairLongerAboveBudget.map({ $0 > 0 && $0 <= 1 }) ?? true else {
                throw ValidationError("--repair-longer-above-budget must be above 0 and at most 1")
            }
            guard !(noRepairLongerAboveBudget && repairLongerAboveBudget != nil) else {
                throw ValidationError("--no-repair-longer-above-budget and --repair-longer-above-budget exclude each other")
            }
            guard !(noTopologyPlannedRelayLate && topologyPlannedRelayLateS != nil) else {
                throw ValidationError("--no-topology-planned-relay-late and --topology-planned-relay-late-s exclude each other")
            }
            guard (1...64).contains(quietBackOffSlots ?? 8) else { throw ValidationError("--quiet-back-off-slots must be 1…64") }
            guard carrierSenseDbm == nil || carrierSense else { throw ValidationError("--carrier-sense-dbm and --no-carrier-sense contradict each other") }
            guard (-200...0).contains(carrierSenseDbm ?? -100) else { throw ValidationError("--carrier-sense-dbm must be −200…0") }
            guard (-10...40).contains(txPowerDbm ?? 30) else { throw ValidationError("--tx-power-dbm must be −10…40") }
            guard (100...3_000).contains(frequencyMhz ?? 908.75) else { throw ValidationError("--frequency-mhz must be 100…3000") }
        }

        var kinds: [SimRouterKind]? {
            switch router {
            case "both": [.ours, .meshtastic]
            case "ours": [.ours]
            case "meshtastic": [.meshtastic]
            default: nil
            }
        }

        func run() throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            if exportTopology {
                for offset in 0..<UInt64(seeds) {
                    var parameters = SimParameters(nodes: nodes, seed: seed &+ offset, router: .ours, messages: messages)
                    parameters.areaM = area
                    parameters.periodPerNode = .seconds(period)
                    print(String(decoding: try encoder.encode(MeshSimulation(parameters).exportTopology()), as: UTF8.self))
                }
                return
            }
            let reference: MeshOptimum?
            if let optimum {
                do {
                    reference = try MeshOptimum(json: Data(contentsOf: URL(fileURLWithPath: optimum)))
                } catch {
                    throw ValidationError("--optimum \(optimum): \(error)")
                }
            } else {
                reference = nil
            }
            var byRouter: [SimRouterKind: [SimResult]] = [:]
            for offset in 0..<UInt64(seeds) {
                var seedResults: [(SimRouterKind, SimResult)] = []
                for kind in kinds ?? [] {
                    var parameters = SimParameters(nodes: nodes, seed: seed &+ offset, router: kind, messages: messages,
                                                   hopLimit: kind == .ours ? hopLimit : baselineHopLimit)
                    parameters.dynamicsSeed = dynamicsSeed
                    parameters.areaM = area
                    parameters.periodPerNode = .seconds(period)
                    if let every = burstEveryS, let length = burstLengthS { parameters.bursts = SimBursts(every: .seconds(every), length: .seconds(length)) }
                    if kind == .ours, let preamble { parameters.channel.modulation.preambleSymbols = preamble }
                    parameters.carrierSense = carrierSense
                    parameters.carrierSenseThresholdDbm = carrierSenseDbm
                    parameters.quietBackOff = quietBackOff
                    parameters.quietBackOffRelays = quietBackOffRelays
                    parameters.listenBeforeTalkWaitsForEnd = listenBeforeTalkWaitsForEnd
                    parameters.relaysWaitForEnd = relaysWaitForEnd
                    parameters.relaysRedrawWhenBusy = relaysRedrawWhenBusy
                    parameters.relaysRedrawStepSlots = relaysRedrawStepSlots
                    parameters.implicitAckRetryJitter = implicitAckRetryJitter
                    if let lookSlots { parameters.lookSlots = lookSlots }
                    parameters.quietBackOffSlots = quietBackOffSlots
                    if let txPowerDbm { parameters.channel.txPowerDbm = txPowerDbm }
                    if let frequencyMhz { parameters.channel.frequencyHz = frequencyMhz * 1e6 }
                    if kind == .ours, let rate = airRateKbps.flatMap(E22AirRate.init(kilobitsPerSecond:)) {
                        parameters.channel.use(rate.modulation,
                                               demodulationLimitDb: SimulatedRadioMedium.demodulationLimit(spreadingFactor: rate.spreadingFactor))
                    }
                    parameters.meshtasticatorScenario = meshtasticatorScenario
                    parameters.nodeMachine = nodeMachine && kind == .ours
                    parameters.directedShare = directedShare
                    if outageBoxes > 0 {
                        let from = Duration.seconds(max(0, outageFromSeconds))
                        parameters.outages = SimOutage.drawn(count: outageBoxes, of: nodes, seed: seed &+ offset,
                                                             from: from, until: from + .seconds(60 * max(0, outageMinutes)))
                    }
                    parameters.reconcile = !noRepair
                    if let drainMinutes { parameters.drain = .seconds(60 * max(0, drainMinutes)) }
                    parameters.repairResetOnNewPacket = repairResetOnNew
                    parameters.repairRelays = !noRepairRelays
                    parameters.nodeRepair = nodeRepair
                    parameters.nodeDigestsNeighboursInRepair = digestNeighboursInRepair
                    parameters.nodeDigestRepeatsForNeighboursInRepair = digestRepeatsForNeighboursInRepair
                    parameters.nodeDigestsWhileAlone = digestsWhileAlone
                    if let repairLongerAboveBudget { parameters.nodeRepairLongerAboveBudgetShare = repairLongerAboveBudget }
                    if noRepairLongerAboveBudget { parameters.nodeRepairLongerAboveBudgetShare = nil }
                    if let repairSuppressionCoversNeighbours {
                        parameters.repairSuppressionCoversNeighbours = repairSuppressionCoversNeighbours
                        parameters.nodeRepairSuppressionCoversNeighbours = repairSuppressionCoversNeighbours
                    }
                    if let fullDigestWhenLacking { parameters.nodeFullDigestWhenLackingAfter = fullDigestWhenLacking > 0 ? .seconds(fullDigestWhenLacking) : nil }
                    parameters.catchUp.answerRepeatedRequests = !repeatedRequestsTakenBack
                    parameters.catchUp.compactLacksAskAgain = !compactLacksTakenBack
                    parameters.catchUp.lacksAfterCopiesAskAgain = !lacksAfterCopiesTakenBack
                    parameters.catchUp.repairAnswersBoxesJustStarted = !justStartedTakenForDeaf
                    parameters.catchUp.newNeighbourDigestsShared = !digestForEachNewNeighbour
                    parameters.catchUp.digestsAfterStartFollowedUp = !startDigestOnlyFollowedUp
                    parameters.catchUp.digestRepeatsDelayed = !digestRepeatsWhenDue
                    if let digestFollowUps { parameters.catchUp.digestFollowUps = max(0, digestFollowUps) }
                    if let firstHelloSpreadS { parameters.catchUp.firstHelloSpread = .milliseconds(Int64(firstHelloSpreadS * 1000)) }
                    parameters.catchUp.digestOriginsRotate = !digestOriginsByID
                    parameters.catchUp.answersSpread = !answersInKeyOrder
                    parameters.catchUp.backgroundYieldsToBackground = backgroundYieldsToBackground
                    parameters.catchUp.backgroundBusyThreshold = backgroundBusyThreshold
                    parameters.catchUp.hellosWaitOnePeriodAtMost = !hellosBackgroundOnly
                    parameters.catchUp.compactDigestWindowShrinks = !compactDigestNewest
                    parameters.catchUp.compactDigestCoding = compactDigestHashes16 ? .hashes16 : .riceCoded
                    parameters.catchUp.lastHopRetry = !noLastHopRetry
                    parameters.catchUp.lastHopRetryOnlyWhenQuiet = !lastHopRetryWhenBusy
                    parameters.catchUp.lastHopRetryRounds = lastHopRetryRounds
                    parameters.catchUp.quickRetryKeepsSchedule = !quickRetryCountsAsAttempt
                    parameters.catchUp.quickRetryRounds = quickRetryRounds
                    parameters.catchUp.firstHopRetry = !noFirstHopRetry
                    parameters.catchUp.retriesArmedOnceTheWayIsKnown = !noRetriesArmedOnceTheWayIsKnown
                    parameters.catchUp.retryJitter = retryJitter
                    parameters.catchUp.outboxRetryJitter = outboxRetryJitter
                    parameters.catchUp.quietForHiddenAnswers = !noQuietForHiddenAnswers
                    parameters.catchUp.acksRepeatedForRetriesOnly = !acksForEveryCopy
                    parameters.catchUp.retryRelaysJittered = !retryRelaysAtOnce
                    parameters.catchUp.retryRelaysSuppressed = !retryRelaysUnsuppressed
                    parameters.repairAnswersBounded = !repairAnswersUnbounded
                    parameters.repairAnswersRenewed = !repairAnswersNotRenewed
                    if noRepairAnswersRenewedWhenHeard { parameters.nodeRepairAnswersRenewedWhenHeard = false }
                    if let dutyCycle { parameters.dutyCycle = dutyCycle / 100 }
                    if let helloPeriod {
                        parameters.helloPeriod = .seconds(helloPeriod)
                    } else if let dutyCycle {
                        // As the daemon picks it when `mesh.hello_interval_s` is left out.
                        parameters.helloPeriod = MeshRouterConfiguration.helloPeriod(dutyCycle: dutyCycle / 100)
                    }
                    if let repairLackingUnsuppressed {
                        parameters.repairLackingUnsuppressed = repairLackingUnsuppressed
                        parameters.nodeRepairLackingUnsuppressed = repairLackingUnsuppressed
                    }
                    parameters.repairCompactDigests = !repairFullDigests
                    parameters.ourConfiguration.cancelAfterCopiesOnlyWhenBusy = !cancelAlways
                    parameters.ourConfiguration.learningRelaysRanked = !learningRelaysFlooding
                    parameters.ourConfiguration.fallbackKeptOnRepeatedCopies = !fallbackCancelledByAnyCopy
                    parameters.ourConfiguration.helloFollowsUpStart = !noHelloFollowUp
                    if let busyUtilisation { parameters.busyUtilisation = busyUtilisation }
                    if collisionFree { parameters.collisionFree = true }
                    if let repairImin { parameters.repairMinimumInterval = .seconds(max(1, repairImin)) }
                    if let repairDoublings {
                        parameters.repairDoublings = max(0, repairDoublings)
                        parameters.nodeRepairDoublings = max(0, repairDoublings)
                    }
                    if let repairRedundancy {
                        parameters.repairRedundancy = max(1, repairRedundancy)
                        parameters.nodeRepairRedundancy = max(1, repairRedundancy)
                    }
                    if let repairJitter { parameters.repairJitter = .milliseconds(max(0, repairJitter)) }
                    if let repairHoldOff { parameters.repairHoldOff = repairHoldOff > 0 ? .milliseconds(repairHoldOff) : nil }
                    if let repairSettle { parameters.repairSettle = .seconds(max(0, repairSettle)) }
                    parameters.baselineCancelsQueued = !oldBaselineQueue
                    parameters.randomNodeIDs = !sequentialIds && !legacyModel
                    parameters.legacyModel = legacyModel
                    if legacyModel { parameters.channel.linkOffsetSigmaDb = 2 }
                    if let linkSigma { parameters.channel.linkOffsetSigmaDb = linkSigma }
                    if let cancelAfterCopies { parameters.ourConfiguration.cancelAfterCopies = cancelAfterCopies }
                    if let cancelUncoveredShare { parameters.ourConfiguration.cancelWhenUncoveredShare = cancelUncoveredShare }
                    if let jitterSlots { parameters.ourConfiguration.jitterSlots = jitterSlots }
                    if let slotsPerRank { parameters.ourConfiguration.slotsPerRank = slotsPerRank }
                    if let rankCap { parameters.ourConfiguration.rankCap = rankCap }
                    if ownRankOrder { parameters.ourConfiguration.relayOrderAmongNeighbours = false }
                    if let leaderJitterSlots { parameters.ourConfiguration.leaderJitterSlots = max(0, leaderJitterSlots) }
                    if let busyLeaderJitterSlots { parameters.ourConfiguration.busyLeaderJitterSlots = max(0, busyLeaderJitterSlots) }
                    if let clearLeaderJitterSlots { parameters.ourConfiguration.clearLeaderJitterSlots = max(0, clearLeaderJitterSlots) }
                    if clearLeaderOnlyWhenBusy { parameters.ourConfiguration.clearLeaderOnlyWhenBusy = true }
                    if let busyJitterSlots { parameters.ourConfiguration.busyJitterSlots = max(0, busyJitterSlots) }
                    if noDestinationRelayOrder { parameters.ourConfiguration.destinationRelayOrder = false }
                    if neighboursKeptByHellosOnly { parameters.ourConfiguration.neighboursKeptByTheirFrames = false }
                    if let quietJitterSlots { parameters.ourConfiguration.quietJitterSlots = quietJitterSlots }
                    if let quietSlotsPerRank { parameters.ourConfiguration.quietSlotsPerRank = quietSlotsPerRank }
                    if let jitterUtilisationLow { parameters.ourConfiguration.jitterUtilisationLow = jitterUtilisationLow }
                    if let jitterUtilisationHigh { parameters.ourConfiguration.jitterUtilisationHigh = jitterUtilisationHigh }
                    if let slotMs { parameters.ourSlot = .microseconds(Int64((slotMs * 1000).rounded())) }
                    if let snrJitterFloor { parameters.ourConfiguration.snrJitterFloorShare = snrJitterFloor }
                    if let snrJitterMinSlots { parameters.ourConfiguration.snrJitterMinSlots = max(0, snrJitterMinSlots) }
                    if let minCoverBucket { parameters.ourConfiguration.minimumCoverBucket = min(minCoverBucket, 3) }
                    if powerControl { parameters.ourConfiguration.powerControl = true }
                    if let powerMargin { parameters.ourConfiguration.powerMarginDb = powerMargin }
                    if retryRelays { parameters.ourConfiguration.retryRelays = true }
                    if busyRelayRetries { parameters.ourConfiguration.retryRelaysWhenBusy = true }
                    if topologyPlan { parameters.ourConfiguration.topologyPlan = true }
                    if topologyFromHellos { parameters.ourConfiguration.topologyFromHellos = true }
                    if let topologyDeferSteps { parameters.ourConfiguration.topologyDeferSteps = max(0, topologyDeferSteps) }
                    if let topologyDeferStepsQuiet { parameters.ourConfiguration.topologyDeferStepsQuiet = max(0, topologyDeferStepsQuiet) }
                    if let topologyDeferQuietBelow { parameters.ourConfiguration.topologyDeferQuietBelow = topologyDeferQuietBelow }
                    if let topologyMinBucket { parameters.ourConfiguration.topologyMinimumBucket = min(topologyMinBucket, 3) }
                    if let topologyShallowFirst { parameters.ourConfiguration.topologyShallowFirst = topologyShallowFirst }
                    if let topologyAdvertsOnPlanChange { parameters.ourConfiguration.topologyAdvertsOnPlanChange = topologyAdvertsOnPlanChange }
                    if let topologyRepair {
                        parameters.ourConfiguration.topologyRepair = topologyRepair
                        parameters.topologyRepairInQuickWarmUp = topologyRepair
                    }
                    if let boxesWithoutPlan { parameters.boxesWithoutPlan = max(0, boxesWithoutPlan) }
                    if let boxesOfOlderBuild { parameters.boxesOfOlderBuild = max(0, boxesOfOlderBuild) }
                    if olderBuildClustered { parameters.olderBuildClustered = true }
                    if let topologyFloodWhileLacking { parameters.ourConfiguration.topologyFloodWhileLacking = topologyFloodWhileLacking }
                    if let topologyFloodBudgetShare { parameters.ourConfiguration.topologyFloodBudgetShare = min(1, max(0, topologyFloodBudgetShare)) }
                    if noTopologyFloodBudgetShare { parameters.ourConfiguration.topologyFloodBudgetShare = nil }
                    if let topologyTrustDepth { parameters.ourConfiguration.topologyTrustDepth = max(0, topologyTrustDepth) }
                    if let topologyPlanVariants { parameters.ourConfiguration.topologyPlanVariants = max(1, topologyPlanVariants) }
                    if let topologyPlanSlack { parameters.ourConfiguration.topologyPlanSlack = max(0, topologyPlanSlack) }
                    if let topologyPlannedRelayLateS { parameters.ourConfiguration.topologyPlannedRelayLateAfter = .milliseconds(Int64(max(0, topologyPlannedRelayLateS) * 1000)) }
                    if noTopologyPlannedRelayLate { parameters.ourConfiguration.topologyPlannedRelayLateAfter = nil }
                    if noTopologyPlannedRelayLateCheck { parameters.ourConfiguration.topologyPlannedRelayLateCheckedBeforeSending = false }
                    if let topologyQuietS { parameters.topologyQuietBeforeMessages = .seconds(max(0, topologyQuietS)) }
                    if let warmUpS { parameters.warmUp = .seconds(max(0, warmUpS)) }
                    if let warmUpTopologyPeriod { parameters.warmUpTopologyPeriod = .seconds(max(60, warmUpTopologyPeriod)) }
                    if warmUpAtDaemonPace { parameters.warmUpAtDaemonPace = true }
                    if let startSpreadS { parameters.startSpread = .seconds(max(0, startSpreadS)) }
                    if let relayImplicitAckMs { parameters.ourConfiguration.relayImplicitAckTimeout = .milliseconds(max(0, relayImplicitAckMs)) }
                    if let cancelUncoveredAtMost { parameters.ourConfiguration.cancelWhenUncoveredAtMost = cancelUncoveredAtMost }
                    parameters.recordReceptionLatencies = pairedLatency
                    seedResults.append((kind, MeshSimulation(parameters).run(optimum: reference)))
                }
                if pairedLatency, seedResults.count == 2 {
                    var (first, second) = (seedResults[0].1, seedResults[1].1)
                    SimResult.pairLatencies(&first, &second)
                    (seedResults[0].1, seedResults[1].1) = (first, second)
                }
                for (kind, var result) in seedResults {
                    result.receptionLatenciesMs = nil
                    byRouter[kind, default: []].append(result)
                    if json {
                        print(String(decoding: try encoder.encode(result), as: UTF8.self))
                    } else if seeds == 1 {
                        print(Self.row(result, label: Self.label(kind, result)))
                        if let line = Self.machineLine(result) { print(line) }
                    }
                }
            }
            if !json {
                if seeds == 1 { return }
                print(Self.header)
                for kind in kinds ?? [] {
                    if let mean = Self.mean(byRouter[kind] ?? []) {
                        print(Self.row(mean, label: "\(Self.label(kind, mean)) (\(seeds) seeds)"))
                        if let line = Self.machineLine(mean) { print(line) }
                    }
                }
            }
        }

        static let header = "router                 nodes reach  reach(conn) conn<5min after-sync useful tx/bcast airtime/deliv(ms) collisions p50(ms) p95(ms) hello-tx sync-tx total-air(s) data-air(s) | greedy: reach useful tx/bcast | optimum: useful tx/bcast equal-reach useful/opt tx/opt"

        /// `ours` or, when the boxes ran the whole node, `ours node`.
        static func label(_ kind: SimRouterKind, _ r: SimResult) -> String {
            r.nodeMachine == true ? "\(kind.rawValue) node" : kind.rawValue
        }

        /// The node machines' directed-message figures, under their row.
        static func machineLine(_ r: SimResult) -> String? {
            guard r.nodeMachine == true else { return nil }
            func o(_ x: Double?, _ digits: Int = 3) -> String { x.map { String(format: "%.\(digits)f", $0) } ?? "-" }
            return "  node machine: directed \(r.directedMessages ?? 0), delivered \(o(r.directedDelivered)), confirmed \(o(r.directedConfirmed)), "
                + "p50 \(r.directedLatencyP50Ms.map { String(format: "%.0f ms", $0) } ?? "-"), p95 \(r.directedLatencyP95Ms.map { String(format: "%.0f ms", $0) } ?? "-"), "
                + "outbox retries \(r.outboxRetries ?? 0), last-hop retries \(r.lastHopRetries ?? 0), first-hop retries \(r.firstHopRetries ?? 0), retries armed late \(r.retriesArmedLate ?? 0), acks repeated \(r.acksRepeated ?? 0), catch-up frames \(r.catchUpFrames ?? 0), "
            + "flood data air \(r.floodDataAirtimeMs.map { String(format: "%.1f s", $0 / 1000) } ?? "-"), "
            + "warm-up sync air \(r.warmUpSyncAirtimeMs.map { String(format: "%.1f s", $0 / 1000) } ?? "-"), "
            + "warm-up hellos \(r.warmUpHelloTransmissions ?? 0) (\(r.warmUpHelloAirtimeMs.map { String(format: "%.1f s", $0 / 1000) } ?? "-")), follow-up hellos \(r.followUpHellos ?? 0), "
            + "full digests \(r.fullDigestTransmissions ?? 0) (\(r.fullDigestAirtimeMs.map { String(format: "%.1f s", $0 / 1000) } ?? "-")), "
            + "neighbours \(o(r.neighboursKnownMean, 1)) of \(String(format: "%.1f", r.meanDegree)) (lowest minute \(o(r.neighboursKnownLowest, 1)))"
            + (r.returnedLacking.map { ", back on: lacked \($0), within 5 min \(o(r.returnedCaughtUpWithinRepairWindow)), "
                + "p50 \(r.returnedCatchUpP50Ms.map { String(format: "%.0f s", $0 / 1000) } ?? "-")" } ?? "")
        }

        static func row(_ r: SimResult, label: String) -> String {
            func f(_ x: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", x) }
            func o(_ x: Double?, _ digits: Int = 3) -> String { x.map { f($0, digits) } ?? "-" }
            return [label.padding(toLength: 22, withPad: " ", startingAt: 0), String(r.nodes), f(r.reachability), f(r.connectedReachability),
                    f(r.connectedReachWithinRepairWindow), f(r.reachabilityAfterSync), f(r.usefulness), f(r.transmissionsPerBroadcast, 2), f(r.airtimePerDeliveredMs, 1),
                    f(Double(r.collisions), 1), f(r.latencyP50Ms, 0), f(r.latencyP95Ms, 0), String(r.helloTransmissions), String(r.syncTransmissions),
                    f(r.totalAirtimeMs / 1000, 1), f(r.dataAirtimeMs / 1000, 1),
                    "|", f(r.reachabilityBound), f(r.usefulnessBound), f(r.planTransmissions, 2),
                    "|", o(r.optimumUsefulness), o(r.optimumFrames, 2), o(r.equalReachShare), o(r.usefulnessVsOptimum), o(r.framesVsOptimum)]
                .joined(separator: " ")
        }

        /// Each reference plan's figures averaged over the runs; its ratios against the optimum
        /// over the runs that have equal-reach messages, as for the router.
        static func meanReferencePlans(_ results: [SimResult]) -> [String: ReferencePlanFigures]? {
            let all = results.compactMap(\.referencePlans)
            guard all.count == results.count, let names = all.first?.keys else { return nil }
            var means: [String: ReferencePlanFigures] = [:]
            for name in names {
                let runs = all.compactMap { $0[name] }
                guard runs.count == all.count else { continue }
                func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
                var f = ReferencePlanFigures(
                    transmissions: mean(runs.map(\.transmissions))!, reachability: mean(runs.map(\.reachability))!,
                    usefulness: mean(runs.map(\.usefulness))!)
                let shares = runs.compactMap(\.equalReachShare)
                f.equalReachShare = shares.count == runs.count ? mean(shares) : nil
                f.framesVsOptimum = mean(runs.compactMap(\.framesVsOptimum))
                f.usefulnessVsOptimum = mean(runs.compactMap(\.usefulnessVsOptimum))
                means[name] = f
            }
            return means
        }

        /// The mean of every figure (counts become means too, rounded).
        static func mean(_ results: [SimResult]) -> SimResult? {
            guard var m = results.first else { return nil }
            let k = Double(results.count)
            func avg(_ f: (SimResult) -> Double) -> Double { results.map(f).reduce(0, +) / k }
            m.reachability = avg(\.reachability)
            m.usefulness = avg(\.usefulness)
            m.transmissionsPerBroadcast = avg(\.transmissionsPerBroadcast)
            m.airtimePerDeliveredMs = avg(\.airtimePerDeliveredMs)
            m.latencyP50Ms = avg(\.latencyP50Ms)
            m.latencyP95Ms = avg(\.latencyP95Ms)
            m.connectedReachability = avg(\.connectedReachability)
            m.reachabilityAfterSync = avg(\.reachabilityAfterSync)
            m.helloAirtimeMs = avg(\.helloAirtimeMs)
            m.syncAirtimeMs = avg(\.syncAirtimeMs)
            m.meanDegree = avg(\.meanDegree)
            m.shortIDCollisionShare = avg(\.shortIDCollisionShare)
            m.planTransmissions = avg(\.planTransmissions)
            m.reachabilityBound = avg(\.reachabilityBound)
            m.usefulnessBound = avg(\.usefulnessBound)
            m.collisions = Int(avg { Double($0.collisions) }.rounded())
            m.helloTransmissions = Int(avg { Double($0.helloTransmissions) }.rounded())
            m.syncTransmissions = Int(avg { Double($0.syncTransmissions) }.rounded())
            m.relaysCancelled = Int(avg { Double($0.relaysCancelled) }.rounded())
            m.connectedReachWithinRepairWindow = avg(\.connectedReachWithinRepairWindow)
            m.dataAirtimeMs = avg(\.dataAirtimeMs)
            m.totalAirtimeMs = avg(\.totalAirtimeMs)
            func optionalMean(_ f: (SimResult) -> Double?) -> Double? {
                let values = results.compactMap(f)
                return values.count == results.count ? values.reduce(0, +) / k : nil
            }
            m.digestAirtimeMs = optionalMean(\.digestAirtimeMs)
            m.collisionsMeasured = optionalMean { $0.collisionsMeasured.map(Double.init) }.map { Int($0.rounded()) }
            m.quietWaits = optionalMean { $0.quietWaits.map(Double.init) }.map { Int($0.rounded()) }
            m.txDutyMean = optionalMean(\.txDutyMean)
            m.txDutyMax = optionalMean(\.txDutyMax)
            m.budgetHeldForegroundS = optionalMean(\.budgetHeldForegroundS)
            m.budgetHeldBackgroundS = optionalMean(\.budgetHeldBackgroundS)
            m.budgetHeldTopRelayersS = optionalMean(\.budgetHeldTopRelayersS)
            m.budgetHeldOtherBoxesS = optionalMean(\.budgetHeldOtherBoxesS)
            m.neighboursKnownMean = optionalMean(\.neighboursKnownMean)
            m.neighboursKnownLowest = optionalMean(\.neighboursKnownLowest)
            m.mprTransmissions = optionalMean(\.mprTransmissions)
            m.mprReachability = optionalMean(\.mprReachability)
            m.referencePlans = meanReferencePlans(results)
            func optionalCount(_ f: (SimResult) -> Int?) -> Int? { optionalMean { f($0).map(Double.init) }.map { Int($0.rounded()) } }
            m.boxesHeldByBudget = optionalCount(\.boxesHeldByBudget)
            m.digestTransmissions = optionalCount(\.digestTransmissions)
            m.repairTransmissions = optionalCount(\.repairTransmissions)
            m.repairsRelayed = optionalCount(\.repairsRelayed)
            m.repairsWasted = optionalCount(\.repairsWasted)
            m.pairedLatencyP50Ms = optionalMean(\.pairedLatencyP50Ms)
            m.pairedDeliveries = optionalCount(\.pairedDeliveries)
            m.optimumFrames = optionalMean(\.optimumFrames)
            m.optimumUsefulness = optionalMean(\.optimumUsefulness)
            m.equalReachShare = optionalMean(\.equalReachShare)
            // Ratios over the runs that have equal-reach messages.
            let withEqual = results.filter { $0.framesVsOptimum != nil }
            m.framesVsOptimum = withEqual.isEmpty || m.optimumFrames == nil ? nil : withEqual.map { $0.framesVsOptimum! }.reduce(0, +) / Double(withEqual.count)
            m.usefulnessVsOptimum = withEqual.isEmpty || m.optimumFrames == nil ? nil : withEqual.map { $0.usefulnessVsOptimum! }.reduce(0, +) / Double(withEqual.count)
            m.optimumProven = m.optimumFrames == nil ? nil : results.allSatisfy { $0.optimumProven == true }
            if m.nodeMachine == true {
                let directed = results.compactMap(\.directedMessages).reduce(0, +)
                m.directedMessages = Int((Double(directed) / k).rounded())
                m.directedDelivered = optionalMean(\.directedDelivered)
                m.directedConfirmed = optionalMean(\.directedConfirmed)
                m.directedLatencyP50Ms = optionalMean(\.directedLatencyP50Ms)
                m.directedLatencyP95Ms = optionalMean(\.directedLatencyP95Ms)
                m.outboxRetries = Int(avg { Double($0.outboxRetries ?? 0) }.rounded())
                m.lastHopRetries = optionalCount(\.lastHopRetries)
                m.firstHopRetries = optionalCount(\.firstHopRetries)
                m.retriesArmedLate = optionalCount(\.retriesArmedLate)
                m.acksRepeated = optionalCount(\.acksRepeated)
                m.catchUpFrames = Int(avg { Double($0.catchUpFrames ?? 0) }.rounded())
                m.floodDataAirtimeMs = optionalMean(\.floodDataAirtimeMs)
                m.warmUpSyncAirtimeMs = optionalMean(\.warmUpSyncAirtimeMs)
                m.warmUpHelloTransmissions = optionalCount(\.warmUpHelloTransmissions)
                m.warmUpHelloAirtimeMs = optionalMean(\.warmUpHelloAirtimeMs)
                m.followUpHellos = optionalCount(\.followUpHellos)
                m.fullDigestTransmissions = optionalCount(\.fullDigestTransmissions)
                m.fullDigestAirtimeMs = optionalMean(\.fullDigestAirtimeMs)
                m.catchUpDataFrames = optionalCount(\.catchUpDataFrames)
                m.catchUpReceptions = optionalCount(\.catchUpReceptions)
                m.catchUpUnneededFrames = optionalCount(\.catchUpUnneededFrames)
                // Pooled over the runs: what every returned box got of all it lacked.
                let lacking = results.compactMap(\.returnedLacking).reduce(0, +)
                let caughtUp = results.reduce(0.0) { $0 + Double($1.returnedLacking ?? 0) * ($1.returnedCaughtUpWithinRepairWindow ?? 0) }
                m.returnedLacking = optionalCount(\.returnedLacking)
                m.returnedCaughtUpWithinRepairWindow = lacking == 0 ? nil : caughtUp / Double(lacking)
                let medians = results.compactMap(\.returnedCatchUpP50Ms)
                m.returnedCatchUpP50Ms = medians.isEmpty ? nil : medians.reduce(0, +) / Double(medians.count)
            }
            return m
        }
    }
}
