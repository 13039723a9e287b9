import DriftMesh
import Foundation

/// A deterministic discrete-event simulation of LoRa boxes running one router.
///
/// Virtual time in microseconds; every random draw comes from generators seeded by the
/// run's seed, and every iteration over a collection is in a fixed order, so the same
/// parameters give the same result. See docs/mesh-simulation.md.
public struct MeshSimulation: Sendable {
    public let parameters: SimParameters

    public init(_ parameters: SimParameters) {
        self.parameters = parameters
    }

    public func run() -> SimResult {
        var engine = Engine(parameters)
        return engine.run()
    }

    /// A run compared with the exact optimum (`MeshOptimum`, from tools/mesh-optimum).
    public func run(optimum: MeshOptimum?) -> SimResult {
        var engine = Engine(parameters)
        var result = engine.run()
        if let optimum { engine.compare(&result, with: optimum) }
        return result
    }

    /// The drawn messages' times after the warm-up and their origins, as `run()` schedules
    /// them when there is no script.
    public func drawnMessages() -> [(at: Duration, origin: Int)] {
        var engine = Engine(parameters)
        return engine.drawMessages(from: 0).map { (Engine.duration($0.time), $0.origin) }
    }

    /// This run's links and message origins, exactly as `run()` uses them (for the
    /// exact-optimum tool: `driftd sim mesh --export-topology`).
    public func exportTopology() -> TopologyExport {
        var engine = Engine(parameters)
        let origins = engine.drawMessages(from: 0).map(\.origin)
        var links: [[Int]] = []
        for s in 0..<parameters.nodes {
            for r in 0..<parameters.nodes where r != s && engine.topology.rssi[s][r] >= engine.channel.sensitivityDbm {
                links.append([s, r])
            }
        }
        return TopologyExport(nodes: parameters.nodes, seed: parameters.seed, links: links, linkChecksum: TopologyExport.checksum(links), origins: origins)
    }
}

/// Either router, without existential overhead.
enum NodeRouter: Sendable {
    case ours(MeshRouter)
    case flooding(ManagedFloodingRouter)

    mutating func with<T>(_ body: (inout any SimRouting) -> T) -> T {
        switch self {
        case .ours(let r):
            var e: any SimRouting = r
            let t = body(&e)
            self = .ours(e as! MeshRouter)
            return t
        case .flooding(let r):
            var e: any SimRouting = r
            let t = body(&e)
            self = .flooding(e as! ManagedFloodingRouter)
            return t
        }
    }

    func helloPayload(publicKey: [UInt8]?, now: Duration) -> HelloPayload {
        switch self {
        case .ours(let r): r.helloPayload(publicKey: publicKey, now: now)
        case .flooding(let r): r.helloPayload(publicKey: publicKey, now: now)
        }
    }

    var nextDeadline: Duration? {
        switch self {
        case .ours(let r): r.nextDeadline
        case .flooding(let r): r.nextDeadline
        }
    }

    /// ``MeshRouter/isOlderAdvert(_:)`` (the baseline floods no adverts).
    func isOlderAdvert(_ header: MeshHeader) -> Bool {
        if case .ours(let r) = self { r.isOlderAdvert(header) } else { false }
    }
}

enum Frame: Sendable {
    /// A data frame and its transmit power below the channel's full power, dB (≥ 0).
    case data(MeshHeader, reductionDb: Double)
    case hello(HelloPayload)
    /// Reconciliation: a digest of what the sender holds (full, or 16-bit hashes of what it got lately)…
    case digest(SyncDigest)
    case compactDigest(CompactDigest)
    /// …and a held packet sent again for a neighbour whose digest lacks it, or (`relay`) one
    /// got as a repair that the router relays on.
    case repair(MeshHeader, relay: Bool)
    /// A topology advert (``MeshRouterConfiguration/topologyPlan``), the origin's or a relay, or
    /// sent again as its relay by a box a neighbour asked (advert repair)…
    case topology(MeshHeader)
    /// …and the request of a box that lacks these boxes' lists (a one-hop `request` frame).
    case topologyRequest(TopologyRequest)
    /// A sealed frame of a box that runs the whole node (`SimParameters.nodeMachine`);
    /// `repair` for a data frame that is not the flood's: a catch-up copy (the node queues those
    /// at background priority), or a relay of a packet its sender got by catch-up — what the
    /// router-only runs count as repair airtime.
    case sealed([UInt8], repair: Bool)
}

struct Engine {
    let p: SimParameters
    let topology: Topology
    let channel: ChannelModel
    let slotUs: Int64
    /// How long a transmission must be on air before channel-activity detection sees it.
    let cadUs: Int64
    let lockUs: Int64
    let dataAirUs: Int64
    var macRng: MeshRandom
    var messageRng: MeshRandom

    struct Node {
        var id: NodeID
        var router: NodeRouter
        var seen: Set<PacketKey> = []
        var queue: [Frame] = []
        var transmitting: Int?
        var macScheduled = false
        /// When the last frame of another box this one sensed ended (µs), for the quiet
        /// back-off (``SimParameters/quietBackOff``).
        var quietSince: Int64?
        var timerAt: Int64?
        var nextPacketID: UInt32 = 1
        var key: [UInt8]
        /// When the box first held each packet (any path: origin, flood, repair).
        var heldAt: [PacketKey: Int64] = [:]
        /// Packets first received from the flood (not from a repair).
        var floodHeld: Set<PacketKey> = []
        /// Packets first received from a repair: relayed on as repairs (`repairRelays`).
        var repairHeld: Set<PacketKey> = []
        var trickle: TrickleTimer?
        var trickleAt: Int64?
        /// Repairs planned (at), and when each packet was last sent as a repair.
        var repairAt: [PacketKey: Int64] = [:]
        var repairSentAt: [PacketKey: Int64] = [:]
        /// When the box last got a packet from the flood or sent one of its own
        /// (`SimParameters.repairHoldOff`), and whether a digest waits for the hold-off's end.
        var lastFloodAt: Int64?
        var digestOwed = false
        /// Frames heard lately, for our router's `channelBusy` (the daemon's detector).
        var channel: ChannelBusyDetector
        /// When `channel` is looked at again (it turns quiet then if nothing more is heard).
        var channelCheckAt: Int64?
        /// The daemon's node, when the box runs it (`SimParameters.nodeMachine`).
        var machine: SimNodeMachine?
        /// When the node asked to be told again that the radio is free.
        var radioAt: Int64?
        /// Switched off (`SimParameters.outages`).
        var down = false
        /// How often this box answered each box's digest with each packet (`repairAnswersBounded`).
        var repairAnswers = RepairAnswerTally<Int>()
        /// Topology adverts this box has had (its own included).
        var topologySeen: Set<PacketKey> = []
        /// Runs a build from before the planned relays (`SimParameters.boxesOfOlderBuild`): drops
        /// every topology advert it decodes as a frame of unknown kind.
        var olderBuild = false
        /// This box's transmissions from the end of the warm-up on (start, time on air), µs.
        var sent: [(start: Int64, airUs: Int64)] = []
    }

    struct Reception {
        var receiver: Int
        var rssi: Double
        var lost = false
    }

    struct Transmission {
        var sender: Int
        var frame: Frame
        var start: Int64
        var end: Int64
        /// Power below the channel's full power, dB.
        var reductionDb: Double
        var receptions: [Reception]
    }

    enum EventKind {
        case timer(Int)
        case mac(Int)
        case txEnd(Int)
        case originate(Int, to: Int?)
        case endWarmUp
        /// The warm-up's advert pace ends (``SimParameters/topologyQuietBeforeMessages``).
        case endTopologyWarmUp
        /// A node machine's radio wake-up.
        case radio(Int)
        /// A box switched off and on again.
        case down(Int)
        case up(Int)
        case trickle(Int)
        case repair(Int, PacketKey)
        /// A digest held off by `repairHoldOff`.
        case owedDigest(Int)
        /// Our router's channel may have turned quiet.
        case channelCheck(Int)
        /// Once a minute after the warm-up: how many neighbours the boxes count.
        case sampleNeighbours
    }

    struct Event: Comparable {
        var time: Int64
        var seq: Int
        var kind: EventKind
        static func < (a: Event, b: Event) -> Bool { (a.time, a.seq) < (b.time, b.seq) }
        static func == (a: Event, b: Event) -> Bool { (a.time, a.seq) == (b.time, b.seq) }
    }

    var nodes: [Node] = []
    var heap: [Event] = []
    var seq = 0
    var now: Int64 = 0
    var transmissions: [Transmission] = []
    var onAir: [Int] = []  // transmission indices in progress
    var activeRx: [[Int]]  // per receiver: transmission indices it is receiving

    // Metrics.
    var originTime: [PacketKey: Int64] = [:]
    var originNode: [PacketKey: Int] = [:]
    var useful = 0
    var dataReceptions = 0
    var dataTx = 0
    var dataAirUsTotal: Int64 = 0
    /// Hellos sent from the first message on (the warm-up's are not counted).
    var helloTx = 0
    /// Topology adverts (``MeshRouterConfiguration/topologyPlan``): their payloads by packet,
    /// adverts originated and frames sent over the whole run, and frames and airtime from the
    /// end of the warm-up on.
    var topologyPayloads: [PacketKey: HelloPayload] = [:]
    var topologyAdverts = 0
    var topologyTxAll = 0
    var topologyTx = 0
    var topologyAirUsTotal: Int64 = 0
    var topologyKnownShare: Double?
    var topologyKnowableShare: Double?
    var topologyPlanAgreement: Double?
    /// Topology frames boxes of an older build decoded and dropped (`SimParameters.boxesOfOlderBuild`).
    var olderBuildDrops = 0
    var helloAirUsTotal: Int64 = 0
    var measuredFromUs: Int64 = 0
    /// When the run stops (the last message, then the drain or the repair window).
    var runEndUs: Int64 = 0
    var collisions = 0
    /// Of ``collisions``, those from `measuredFromUs` on.
    var collisionsMeasured = 0
    /// Frames held back 1…`lookSlots` slots for a frame end just sensed (``SimParameters/quietBackOff``).
    var quietWaits = 0
    /// First copies lost, by cause (counts; per message in the result).
    var losses = UsefulLosses()
    /// Why each box's relay of a packet went (our router), and the figures by reason (counts).
    var relayReasons: [Int: [PacketKey: MeshRouter.RelayReason]] = [:]
    var relayFigures: [MeshRouter.RelayReason: RelayFigures] = [:]
    /// The reference plans' outcomes on this run's topology (`referencePlanOutcomes()`), kept
    /// for the comparison with the optimum.
    var referenceOutcomes: [(name: String, byOrigin: [Int: PlanOutcome])] = []
    var latenciesUs: [Int64] = []
    /// Per message in origination order, per box: first-reception latency (`recordReceptionLatencies`).
    var messageIndex: [PacketKey: Int] = [:]
    var receptionLatencies: [Int64] = []
    var cancelled = 0
    var headers: [PacketKey: MeshHeader] = [:]
    /// Per message: data frames, decoded data frames, useful receptions (flood only).
    var framesByKey: [PacketKey: Int] = [:]
    var receptionsByKey: [PacketKey: Int] = [:]
    var reachedByKey: [PacketKey: Int] = [:]
    /// The boxes that sent each packet as a data frame (for ``MissedReach``).
    var floodSenders: [PacketKey: Set<Int>] = [:]
    var syncTx = 0
    var syncAirUsTotal: Int64 = 0
    var digestTx = 0
    /// Times a digest or repair was put off by `SimParameters.repairHoldOff`.
    var heldOff = 0
    var digestAirUsTotal: Int64 = 0
    /// Repairs relayed on by the router of a box that got the packet as a repair, and repairs no box decoded as new.
    var repairs = (relayed: 0, wasted: 0)
    /// The node machines' messages and figures (`SimParameters.nodeMachine`).
    var machines = MachineRecord()
    /// Per minute after the warm-up (our router): the mean live neighbour count of the boxes on.
    var neighbourSamples: [Double] = []

    /// The boxes of an older build (`SimParameters.boxesOfOlderBuild`): the first ones, which are
    /// placed at random, or with `olderBuildClustered` box 0 and the boxes nearest to it.
    static func boxesOfOlderBuild(_ p: SimParameters, topology: Topology) -> Set<Int> {
        let count = min(p.boxesOfOlderBuild, p.nodes)
        guard p.olderBuildClustered, count > 0 else { return Set(0..<count) }
        let positions = topology.positions
        func distance(_ i: Int) -> Double {
            let (dx, dy) = (positions[i].x - positions[0].x, positions[i].y - positions[0].y)
            return (dx * dx + dy * dy).squareRoot()
        }
        return Set(positions.indices.sorted { (distance($0), $0) < (distance($1), $1) }.prefix(count))
    }

    init(_ p: SimParameters) {
        self.p = p
        self.channel = p.channel
        var topoRng = MeshRandom(seed: p.seed &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        if let positions = p.positions {
            self.topology = Topology(positions: positions, channel: p.channel, rng: &topoRng)
        } else {
            self.topology = Topology(nodes: p.nodes, areaM: p.areaM, minimumDistanceM: p.minimumDistanceM, channel: p.channel, rng: &topoRng)
        }
        self.macRng = MeshRandom(seed: p.seed ^ 0xA5A5_A5A5_5A5A_5A5A ^ p.dynamicsSeed &* 0x9E37_79B9_7F4A_7C15)
        self.messageRng = MeshRandom(seed: p.seed ^ 0x0123_4567_89AB_CDEF)
        self.slotUs = p.ourSlot.map(Engine.micros) ?? Int64(channel.slotMs * 1000)
        self.cadUs = Int64((p.legacyModel ? channel.slotMs : channel.meshtasticSlotMs) * 1000)
        self.lockUs = Int64(channel.lockSeconds * 1_000_000)
        self.dataAirUs = Int64(LoRaAirtime.seconds(payloadBytes: p.dataFrameBytes, modulation: p.channel.modulation) * 1_000_000)
        self.activeRx = Array(repeating: [], count: p.nodes)
        let keyPairs = p.nodeMachine ? Engine.keyPairs(count: p.nodes, seed: p.seed) : []
        let ids = p.nodeMachine ? keyPairs.map(\.nodeID) : Engine.nodeIDs(count: p.nodes, seed: p.seed, random: p.randomNodeIDs)
        let olderBuild = Self.boxesOfOlderBuild(p, topology: topology)
        for i in 0..<p.nodes {
            let id = ids[i]
            let router: NodeRouter
            switch p.router {
            case .ours:
                var config = p.ourConfiguration
                if p.warmUpAtDaemonPace {
                    config.helloPeriod = p.helloPeriod
                    config.helloJitter = p.helloPeriod / 10
                    // The daemon's advert pace, by the hello period as `MeshSetup.routing` sets it:
                    // 9 h between a box's adverts where a 1 % sub-band slows the hellos to 900 s
                    // (until issue 19's session of 2026-12-07 the simulator kept the 300-s pace,
                    // here and at the ends of the warm-up below).
                    config.paceTopology(byHelloPeriod: p.helloPeriod)
                } else {
                    config.helloPeriod = p.warmUpHelloPeriod
                    config.helloJitter = p.warmUpHelloPeriod / 6
                    config.topologyPeriod = p.warmUpTopologyPeriod
                    config.topologyMinimumInterval = min(config.topologyMinimumInterval, p.warmUpTopologyPeriod)
                    if !p.topologyRepairInQuickWarmUp { config.topologyRepair = false }
                }
                if i < p.boxesWithoutPlan || olderBuild.contains(i) { config.topologyPlan = false }
                config.slot = .microseconds(slotUs)
                config.redrawRelayDelayWhenBusy = p.relaysRedrawWhenBusy && !p.nodeMachine
                config.redrawRankStepSlots = p.relaysRedrawStepSlots
                config.implicitAckRetryJitter = p.implicitAckRetryJitter
                // Power control against this channel: full power and the SNR at which a frame decodes.
                config.maxTxPowerDbm = Int(channel.txPowerDbm)
                config.decodeSnrDb = channel.sensitivityDbm - channel.noiseLevelDbm
                router = .ours(MeshRouter(me: id, configuration: config, seed: p.seed ^ p.dynamicsSalt))
            case .meshtastic:
                let calibrating = p.meshtasticatorScenario
                router = .flooding(ManagedFloodingRouter(me: id, slotMs: calibrating || p.legacyModel ? channel.slotMs : channel.meshtasticSlotMs, packetAirtime: .microseconds(dataAirUs),
                                                         retransmissions: calibrating ? 3 : 2, cwMin: calibrating ? 2 : 3,
                                                         cancelQueued: p.baselineCancelsQueued, meshtasticatorMAC: calibrating, legacy: p.legacyModel, seed: p.seed ^ p.dynamicsSalt))
            }
            var key = [UInt8](repeating: 0, count: 32)
            for b in 0..<4 { key[b] = UInt8(truncatingIfNeeded: id.rawValue >> (8 * b)) }
            nodes.append(Node(id: id, router: router, key: key,
                              channel: ChannelBusyDetector(threshold: p.busyUtilisation, window: p.busyWindow)))
            if p.nodeMachine, case .ours(let r) = router {
                nodes[i].machine = Engine.machine(keyPairs[i], configuration: r.configuration, parameters: p)
            }
            if p.router == .ours, olderBuild.contains(i) { nodes[i].olderBuild = true }
        }
    }

    /// Node ids: random 32-bit ids as real boxes draw them (distinct, seeded; their low
    /// bytes — the relayer field — may collide), or the old collision-free `2i` scheme.
    static func nodeIDs(count: Int, seed: UInt64, random: Bool) -> [NodeID] {
        guard random else {
            return (0..<count).map { i in NodeID(UInt32(0x1000_0000) + UInt32(i) &* 0x0101_0101 &+ UInt32(i)) }
        }
        var rng = MeshRandom(seed: seed ^ 0x1D1D_1D1D_0000_0001)
        var ids: [NodeID] = []
        var taken: Set<UInt32> = [0, .max]
        while ids.count < count {
            let raw = UInt32(truncatingIfNeeded: rng.next())
            if taken.insert(raw).inserted { ids.append(NodeID(raw)) }
        }
        return ids
    }

    mutating func schedule(_ time: Int64, _ kind: EventKind) {
        seq += 1
        heap.append(Event(time: time, seq: seq, kind: kind))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if heap[i] < heap[parent] { heap.swapAt(i, parent); i = parent } else { break }
        }
    }

    mutating func pop() -> Event? {
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && heap[l] < heap[m] { m = l }
                if r < heap.count && heap[r] < heap[m] { m = r }
                if m == i { break }
                heap.swapAt(i, m)
                i = m
            }
        }
        return top
    }

    static func duration(_ us: Int64) -> Duration { .microseconds(us) }
    static func micros(_ d: Duration) -> Int64 {
        let c = d.components
        return c.seconds * 1_000_000 + c.attoseconds / 1_000_000_000_000
    }

    mutating func run() -> SimResult {
        let warmUpUs = p.router == .ours ? Engine.micros(p.warmUp) : 0
        measuredFromUs = warmUpUs
        // Every box starts its router (ours sends its first hello at a random moment in the first
        // period, or starts at its own moment of the start spread, hearing nothing before).
        let startSpan = p.startSpread.map { min(Engine.micros($0), warmUpUs) } ?? Engine.micros(p.warmUpAtDaemonPace ? p.helloPeriod : p.warmUpHelloPeriod)
        for i in nodes.indices {
            let start = Int64(macRng.unit() * Double(startSpan))
            nodes[i].timerAt = nil
            if p.router == .ours, p.startSpread != nil {
                nodes[i].down = true
                schedule(start, .up(i))
            } else {
                schedule(p.router == .ours ? start : 0, .timer(i))
            }
        }
        if p.router == .ours { schedule(warmUpUs, .endWarmUp) }
        if p.router == .ours, p.ourConfiguration.topologyPlan, !p.warmUpAtDaemonPace, p.topologyQuietBeforeMessages > .zero {
            schedule(max(0, warmUpUs - Engine.micros(p.topologyQuietBeforeMessages)), .endTopologyWarmUp)
        }
        var t = warmUpUs
        for message in messageSchedule(from: warmUpUs) {
            t = message.time
            schedule(t, .originate(message.origin, to: message.destination))
        }
        if nodes.first?.machine != nil {
            for outage in p.outages where nodes.indices.contains(outage.box) {
                schedule(warmUpUs + Engine.micros(outage.from), .down(outage.box))
                schedule(warmUpUs + Engine.micros(outage.until), .up(outage.box))
            }
        }
        let repairing = p.router == .ours && p.reconcile && !p.nodeMachine
        if repairing {
            for i in nodes.indices {
                nodes[i].trickle = TrickleTimer(minimumInterval: p.repairMinimumInterval, doublings: p.repairDoublings, redundancy: p.repairRedundancy,
                                                now: Engine.duration(warmUpUs), seed: p.seed ^ UInt64(nodes[i].id.rawValue) ^ 0x7121_C1E5 ^ p.dynamicsSalt)
                rescheduleTrickle(i)
            }
        }
        let repairTail = max(p.drain, p.repairWindow + .seconds(10))
        var endUs = t + Engine.micros(repairing || p.nodeMachine ? repairTail : p.drain)
        if nodes.first?.machine != nil, let lastBack = p.outages.map(\.until).max() {
            // The repair window after the last box comes back is part of the run (or the drain,
            // when longer).
            endUs = max(endUs, warmUpUs + Engine.micros(lastBack + repairTail))
        }
        runEndUs = endUs
        if p.router == .ours {
            // Samples only read the routers: the other events keep their order (and the results).
            let minute = 60_000_000
            for at in stride(from: warmUpUs + Int64(minute), through: endUs, by: minute) { schedule(at, .sampleNeighbours) }
        }
        while let event = pop(), event.time <= endUs {
            now = event.time
            switch event.kind {
            case .timer(let n):
                if let at = nodes[n].timerAt, at != now { continue }
                nodes[n].timerAt = nil
                if nodes[n].machine != nil {
                    machineTimer(n)
                    continue
                }
                let nowD = Engine.duration(now)
                let actions = nodes[n].router.with { $0.due(now: nowD) }
                apply(actions, at: n)
            case .mac(let n):
                nodes[n].macScheduled = false
                tryTransmit(n)
            case .txEnd(let tx):
                finish(tx)
            case .originate(let n, let destination):
                if nodes[n].machine != nil { machineOriginate(at: n, to: destination) } else { originate(at: n) }
            case .radio(let n):
                guard nodes[n].radioAt == now else { continue }
                nodes[n].radioAt = nil
                machineRadioIdle(n)
            case .down(let n):
                switchOff(n)
            case .up(let n):
                switchOn(n)
            case .owedDigest(let n):
                guard nodes[n].digestOwed else { continue }
                if let until = holdOffEnd(n), until > now {
                    schedule(until, .owedDigest(n))
                    continue
                }
                nodes[n].digestOwed = false
                sendDigest(n)
            case .trickle(let n):
                guard nodes[n].trickleAt == now else { continue }
                nodes[n].trickleAt = nil
                trickleFired(n)
            case .channelCheck(let n):
                guard nodes[n].channelCheckAt == now else { continue }
                nodes[n].channelCheckAt = nil
                checkChannel(n)
            case .repair(let n, let key):
                guard nodes[n].repairAt[key] == now, let header = headers[key] else { continue }
                if let until = holdOffEnd(n), until > now {
                    heldOff += 1
                    let at = until + Int64(macRng.unit() * Double(Engine.micros(p.repairJitter)))
                    nodes[n].repairAt[key] = at
                    schedule(at, .repair(n, key))
                    continue
                }
                nodes[n].repairAt[key] = nil
                nodes[n].repairSentAt[key] = now
                nodes[n].queue.append(.repair(header.relayed(by: nodes[n].id), relay: false))
                tryTransmit(n)
            case .sampleNeighbours:
                sampleNeighbours()
            case .endTopologyWarmUp:
                let hellos = p.helloPeriod
                for i in nodes.indices { retuneOurs(at: i) { $0.paceTopology(byHelloPeriod: hellos) } }
            case .endWarmUp:
                if p.ourConfiguration.topologyPlan, p.router == .ours { noteTopologyKnowledge() }
                for i in nodes.indices {
                    guard let machine = nodes[i].machine else { continue }
                    machines.budgetHeldAtWarmUpEnd[i] = machine.budgetHeld(at: Engine.duration(now))
                    machines.relaysAtWarmUpEnd[i] = machine.allCounters.sentRelays
                }
                let hellos = p.helloPeriod
                for i in nodes.indices {
                    retuneOurs(at: i) { c in
                        c.helloPeriod = hellos
                        c.helloJitter = hellos / 10
                        c.paceTopology(byHelloPeriod: hellos)
                    }
                }
            }
        }
        return result()
    }

    /// Changes the configuration of box `i`'s router, inside its node machine when it runs one.
    mutating func retuneOurs(at i: Int, _ change: (inout MeshRouterConfiguration) -> Void) {
        if var machine = nodes[i].machine {
            var c = machine.settings.router
            change(&c)
            machine.retune(router: c)
            nodes[i].machine = machine
        } else if case .ours(var r) = nodes[i].router {
            change(&r.configuration)
            nodes[i].router = .ours(r)
        }
    }

    /// The mean live neighbour count of the boxes that are on, now (`neighbourSamples`).
    mutating func sampleNeighbours() {
        let nowD = Engine.duration(now)
        var counts: [Int] = []
        for node in nodes where !node.down {
            if let machine = node.machine {
                counts.append(machine.liveNeighbourCount(at: nowD))
            } else if case .ours(let r) = node.router {
                counts.append(r.liveNeighbourCount(now: nowD))
            }
        }
        guard !counts.isEmpty else { return }
        neighbourSamples.append(Double(counts.reduce(0, +)) / Double(counts.count))
    }

    /// The message schedule: exponential gaps (mean `period / nodes`) from `start`, random
    /// origins; with `p.bursts`, each span of the schedule packed into its first part.
    mutating func drawMessages(from start: Int64) -> [(time: Int64, origin: Int)] {
        var t = start
        let meanGap = Double(Engine.micros(p.periodPerNode)) / Double(p.nodes)
        var out: [(time: Int64, origin: Int)] = []
        for _ in 0..<p.messages {
            t += Int64(-meanGap * log(max(messageRng.unit(), 1e-12)))
            out.append((t, messageRng.int(in: 0...(p.nodes - 1))))
        }
        if let bursts = p.bursts {
            let every = Engine.micros(bursts.every), length = Engine.micros(bursts.length)
            out = out.map { (start + SimBursts.packed($0.time - start, every: every, length: length), $0.origin) }
        }
        return out
    }

    // MARK: Repair (reconciliation under contention)

    mutating func rescheduleTrickle(_ n: Int) {
        guard let timer = nodes[n].trickle else { return }
        let at = max(now, Engine.micros(timer.nextDeadline))
        if nodes[n].trickleAt == at { return }
        nodes[n].trickleAt = at
        schedule(at, .trickle(n))
    }

    mutating func trickleFired(_ n: Int) {
        guard var timer = nodes[n].trickle else { return }
        let nowD = Engine.duration(now)
        let send: Bool
        if p.repairSuppressionCoversNeighbours, case .ours(let router) = nodes[n].router {
            send = timer.due(now: nowD) { router.everyNeighbourHears(oneOf: $0, now: nowD) }
        } else {
            send = timer.due(now: nowD)
        }
        nodes[n].trickle = timer
        if send, !nodes[n].seen.isEmpty {
            if let until = holdOffEnd(n), until > now {
                // The flood may still be crossing: the digest goes out once it has passed.
                heldOff += 1
                if !nodes[n].digestOwed {
                    nodes[n].digestOwed = true
                    schedule(until, .owedDigest(n))
                }
            } else {
                sendDigest(n)
            }
        }
        rescheduleTrickle(n)
    }

    /// When `n`'s repair hold-off ends (`SimParameters.repairHoldOff`); `nil` = none.
    func holdOffEnd(_ n: Int) -> Int64? {
        guard let holdOff = p.repairHoldOff, let last = nodes[n].lastFloodAt else { return nil }
        return last + Engine.micros(holdOff)
    }

    /// Queues `n`'s digest (compact or full) and tries the channel.
    mutating func sendDigest(_ n: Int) {
        if p.repairCompactDigests {
            let from = now - Engine.micros(p.repairDigestWindow)
            let recent = nodes[n].seen.filter { (nodes[n].heldAt[$0] ?? 0) >= from }
                .sorted { (nodes[n].heldAt[$0] ?? 0, $0) > (nodes[n].heldAt[$1] ?? 0, $1) }
            let minutes = UInt8(clamping: Engine.micros(p.repairDigestWindow) / 60_000_000)
            let salt = UInt16(truncatingIfNeeded: macRng.next())
            // 16-bit hashes, as every router-model figure in docs/mesh-simulation.md was
            // measured; the node's own digests are Rice-coded (`--node-machine`).
            nodes[n].queue.append(.compactDigest(CompactDigest(recent: recent, salt: salt, windowMinutes: minutes, coding: .hashes16)))
        } else {
            for digest in Engine.digests(of: nodes[n].seen) { nodes[n].queue.append(.digest(digest)) }
        }
        tryTransmit(n)
    }

    /// `r` decoded `digest`: plan repairs of what the sender lacks (packets `r` has held for
    /// a while, each after a random delay, unless sent lately), and feed the Trickle timer.
    mutating func heardDigest(_ digest: SyncDigest, from s: Int, at r: Int) {
        let settleUs = Engine.micros(p.repairSettle)
        let settled = nodes[r].seen.filter { (nodes[r].heldAt[$0] ?? 0) <= now - settleUs }
        let missing = Reconciler.missing(held: settled, digest: digest)
        let lacking = !Reconciler.wanted(held: nodes[r].seen, digest: digest, limit: 1).isEmpty
        heardDigest(missing: missing, lacking: lacking, from: s, at: r)
    }

    /// `r` decoded a compact digest: the same, judging only packets `r` got within the
    /// digest's window less `repairDigestMargin` (the sender may have got them earlier).
    mutating func heardDigest(_ digest: CompactDigest, from s: Int, at r: Int) {
        let settleUs = Engine.micros(p.repairSettle)
        let from = now - Int64(digest.windowMinutes) * 60_000_000 + Engine.micros(p.repairDigestMargin)
        let judged = nodes[r].seen.filter {
            let at = nodes[r].heldAt[$0] ?? 0
            return at <= now - settleUs && at >= from
        }
        heardDigest(missing: digest.missing(from: judged), lacking: digest.listsMoreThan(nodes[r].seen), from: s, at: r)
    }

    /// Plans repairs of `missing` at `r` and tells its Trickle timer whether the digest
    /// showed `r` lacking something (inconsistent) or matched (consistent). As the daemon's
    /// node answers (`MeshNodeMachine.answerable`, with `p.repairAnswersBounded`): nothing to a
    /// sender `s` whose hello says it does not hear `r`, and a packet to the same sender at
    /// most `MeshNodeMachine.repairAnswersPerNeighbour` times, then once more each time two
    /// hello periods have passed since the last (`p.repairAnswersRenewed`).
    mutating func heardDigest(missing: [PacketKey], lacking: Bool, from s: Int, at r: Int) {
        let minimumUs = Engine.micros(p.repairMinimumInterval)
        let bounded = p.repairAnswersBounded
        var deaf = false
        if bounded, case .ours(let router) = nodes[r].router { deaf = router.isDeaf(nodes[s].id) }
        for key in missing where nodes[r].repairAt[key] == nil && !deaf {
            if let last = nodes[r].repairSentAt[key], now - last < minimumUs { continue }
            if bounded, !nodes[r].repairAnswers.take(key, to: s, limit: SimNodeMachine.repairAnswersPerNeighbour, at: Engine.duration(now),
                                                      renewal: p.repairAnswersRenewed ? SimNodeMachine.repairAnswerRenewal(helloPeriod: p.helloPeriod) : nil).sends { continue }
            let at = now + Int64(macRng.unit() * Double(Engine.micros(p.repairJitter)))
            nodes[r].repairAt[key] = at
            schedule(at, .repair(r, key))
        }
        if var timer = nodes[r].trickle {
            if lacking {
                timer.inconsistent(now: Engine.duration(now), mustSend: p.repairLackingUnsuppressed)
            } else if missing.isEmpty {
                timer.consistent(from: nodes[s].id)
            }
            nodes[r].trickle = timer
            rescheduleTrickle(r)
        }
    }

    /// `r` decoded a repair of `header` (sent by a box that held it, or relayed on by one that
    /// got it as a repair): it holds the packet now; its own planned repair of the same packet
    /// is left to the box that already sent one. With `repairRelays` the router hears it like a
    /// copy from the flood and relays it on when its neighbours look uncovered, as the
    /// daemon's node relays a catch-up copy: a box that missed a packet often has neighbours
    /// that missed it too.
    mutating func heardRepair(_ header: MeshHeader, link: LinkQuality, at r: Int) {
        let key = header.key
        let first = nodes[r].seen.insert(key).inserted
        if first {
            nodes[r].heldAt[key] = now
            nodes[r].repairHeld.insert(key)
        }
        if nodes[r].repairAt.removeValue(forKey: key) != nil {
            nodes[r].repairSentAt[key] = now
        }
        nodes[r].queue.removeAll {
            if case .repair(let h, _) = $0 { return h.key == key }
            return false
        }
        guard p.repairRelays else { return }
        let nowD = Engine.duration(now)
        apply(nodes[r].router.with { $0.heard(header, link: link, firstTime: first, now: nowD) }, at: r)
    }

    /// `r` decoded a frame that started at `start` and ends now: our router's `channelBusy`
    /// and `channelUtilisation` follow the airtime of the frames decoded, as the daemon's
    /// `MeshNode` feeds them (a radio hands it only the frames it decoded).
    mutating func noteHeard(_ r: Int, start: Int64) {
        guard case .ours(var router) = nodes[r].router, router.configuration.readsChannelLoad else { return }
        let nowD = Engine.duration(now)
        let flipped = nodes[r].channel.heard(airtime: Engine.duration(now - start), endingAt: nowD)
        let share = nodes[r].channel.lastShare
        if nodes[r].machine != nil {
            feed(.channelUtilisation(share), to: r)
        } else {
            router.channelUtilisation = share
            nodes[r].router = .ours(router)
        }
        channelFlipped(r, flipped)
    }

    /// At `r`'s channel check: the channel may have turned quiet.
    mutating func checkChannel(_ r: Int) {
        channelFlipped(r, nodes[r].channel.update(now: Engine.duration(now)))
    }

    /// Tells `r`'s router or node when its channel flipped, and plans the next check.
    mutating func channelFlipped(_ r: Int, _ flipped: Bool?) {
        if let busy = flipped {
            if nodes[r].machine != nil {
                machineChannelBusy(r, busy)
            } else if case .ours(var router) = nodes[r].router {
                router.channelBusy = busy
                nodes[r].router = .ours(router)
            }
        }
        // Rounded up to the simulator's microsecond, so the check finds the channel quiet.
        guard let quiet = nodes[r].channel.quietAt(after: Engine.duration(now)).map({ max(now + 1, Engine.micros($0 + .nanoseconds(999))) }),
              nodes[r].channelCheckAt != quiet else { return }
        nodes[r].channelCheckAt = quiet
        schedule(quiet, .channelCheck(r))
    }

    mutating func originate(at n: Int) {
        let id = nodes[n].id
        let header = MeshHeader(kind: .broadcast, origin: id, packetID: nodes[n].nextPacketID, hopStart: p.hopLimit, expiresAtMinute: 0)
        nodes[n].nextPacketID += 1
        nodes[n].seen.insert(header.key)
        nodes[n].heldAt[header.key] = now
        nodes[n].lastFloodAt = now
        headers[header.key] = header
        originTime[header.key] = now
        originNode[header.key] = n
        if p.recordReceptionLatencies {
            messageIndex[header.key] = messageIndex.count
            receptionLatencies += Array(repeating: -1, count: p.nodes)
        }
        let nowD = Engine.duration(now)
        let actions = nodes[n].router.with { $0.originate(header, now: nowD) }
        apply(actions, at: n)
    }

    /// At the end of the warm-up: how much of the mesh the boxes know from the adverts, and how
    /// often a box's own plan decision (relay or not, per origin) is the one the plan on the true
    /// links gives (`SimResult.topologyKnownShare`, `topologyPlanAgreement`), and how much of it
    /// the links let a box know at all (`topologyKnowableShare`).
    mutating func noteTopologyKnowledge() {
        let n = nodes.count
        let rssi = topology.rssi, sensitivity = channel.sensitivityDbm
        let minimum = p.ourConfiguration.topologyMinimumBucket ?? p.ourConfiguration.minimumCoverBucket
        // A box heard by nobody cannot advertise.
        let advertises = (0..<n).map { r in (0..<n).contains { $0 != r && rssi[r][$0] >= sensitivity } }
        var truth = MeshTopology()
        truth.shallowFirst = p.ourConfiguration.topologyShallowFirst
        for r in 0..<n {
            var hears: [NodeID: UInt8] = [:]
            for s in 0..<n where s != r && rssi[s][r] >= sensitivity {
                hears[nodes[s].id] = LinkBucket.bucket(snr: rssi[s][r] - channel.noiseLevelDbm)
            }
            if advertises[r] { truth.learn(nodes[r].id, hears: hears, now: .zero) }
        }
        // Who can learn whose list: the boxes each advertising box's flood can get to.
        var reachedBy = Array(repeating: Set<Int>(), count: n)
        for r in 0..<n where advertises[r] {
            for t in topology.downstream(of: r, sensitivity: sensitivity) { reachedBy[t].insert(r) }
        }
        var known = 0.0, knowable = 0.0, agree = 0, decisions = 0
        for i in 0..<n {
            guard case .ours(let router) = nodes[i].router else { continue }
            var mine = nodes[i].machine?.topology ?? router.topology
            known += Double(mine.count) / Double(n)
            knowable += Double(reachedBy[i].union([i]).count) / Double(n)
            for o in 0..<n where o != i {
                let truePlan = truth.relays(from: nodes[o].id, minimumBucket: minimum)?.contains(nodes[i].id) ?? false
                let myPlan = mine.relays(from: nodes[o].id, minimumBucket: minimum)?.contains(nodes[i].id) ?? false
                decisions += 1
                if truePlan == myPlan { agree += 1 }
            }
        }
        topologyKnownShare = known / Double(n)
        topologyKnowableShare = knowable / Double(n)
        topologyPlanAgreement = decisions == 0 ? 1 : Double(agree) / Double(decisions)
    }

    /// `n` floods its topology advert: a packet of its own, relayed by the routers as a flood.
    mutating func originateTopology(at n: Int) {
        guard case .ours(var router) = nodes[n].router else { return }
        let nowD = Engine.duration(now)
        let header = MeshHeader(kind: .topology, origin: nodes[n].id, packetID: nodes[n].nextPacketID, hopStart: p.hopLimit, expiresAtMinute: 0)
        nodes[n].nextPacketID += 1
        nodes[n].topologySeen.insert(header.key)
        topologyPayloads[header.key] = router.topologyAdvert(now: nowD)
        topologyAdverts += 1
        let actions = router.originate(header, now: nowD)
        nodes[n].router = .ours(router)
        apply(actions, at: n)
    }

    mutating func apply(_ actions: [RouterAction], at n: Int) {
        for action in actions {
            switch action {
            case .transmit(let header, _) where header.kind == .topology:
                nodes[n].queue.append(.topology(header))
            case .transmit(let header, let powerDbm):
                if nodes[n].repairHeld.contains(header.key) {
                    // A packet this box got as a repair goes on as one (repair airtime, not the flood's).
                    nodes[n].queue.append(.repair(header, relay: true))
                    continue
                }
                let reduction = powerDbm.map { max(0, channel.txPowerDbm - Double($0)) } ?? 0
                nodes[n].queue.append(.data(header, reductionDb: reduction))
                if header.hopsTaken > 0, case .ours(let router) = nodes[n].router, let reason = router.relayReason(header.key) {
                    relayReasons[n, default: [:]][header.key] = reason
                }
            case .sendHello, .sendFollowUpHello:
                let key = nodes[n].key
                let payload = nodes[n].router.helloPayload(publicKey: key, now: Engine.duration(now))
                nodes[n].queue.append(.hello(payload))
            case .sendTopology:
                originateTopology(at: n)
            case .requestTopology(let boxes):
                nodes[n].queue.append(.topologyRequest(TopologyRequest(boxes: boxes)))
            case .answerTopology(let header):
                nodes[n].queue.append(.topology(header))
            case .cancelled(let key):
                let before = nodes[n].queue.count
                nodes[n].queue.removeAll {
                    if case .data(let h, _) = $0 { return h.key == key }
                    if case .repair(let h, _) = $0 { return h.key == key }
                    if case .topology(let h) = $0 { return h.key == key }
                    return false
                }
                cancelled += before - nodes[n].queue.count
            case .deliver:
                break
            }
        }
        if !nodes[n].queue.isEmpty { tryTransmit(n) }
        rescheduleTimer(n)
    }

    mutating func rescheduleTimer(_ n: Int) {
        guard let deadline = nodes[n].router.nextDeadline else { return }
        let at = max(now, Engine.micros(deadline))
        if nodes[n].timerAt == at { return }
        if let current = nodes[n].timerAt, current <= at, current >= now { return }
        nodes[n].timerAt = at
        schedule(at, .timer(n))
    }

    /// The power at or above which our boxes' carrier sense (the baseline's CAD) hears a frame, dBm.
    var senseThresholdDbm: Double {
        p.router == .ours ? p.carrierSenseThresholdDbm ?? channel.cadThresholdDbm : channel.cadThresholdDbm
    }

    /// Our boxes hold a frame ready as the channel turns quiet (``SimParameters/quietBackOff``,
    /// with carrier sense; the baseline's MAC is the firmware's).
    var modelsQuietBackOff: Bool { p.router == .ours && p.carrierSense && p.quietBackOff }

    /// Whether our box `n` sensed a frame end less than a slot ago: its next frame waits
    /// 1…`lookSlots` slots (``SimParameters/quietBackOff``).
    func justQuiet(_ n: Int) -> Bool {
        modelsQuietBackOff && nodes[n].quietSince.map { now - $0 < slotUs } == true
    }

    mutating func channelBusy(_ n: Int) -> Bool {
        guard p.carrierSense || p.router == .meshtastic else { return false }
        if p.meshtasticatorScenario, macRng.int(in: 0...9) == 0 { return true }
        return sensedBusyUntil(n) != nil
    }

    /// When the last frame box `n` senses on the air now ends (µs), or `nil` when it senses none.
    func sensedBusyUntil(_ n: Int) -> Int64? {
        let threshold = senseThresholdDbm
        var until: Int64?
        for tx in onAir {
            let t = transmissions[tx]
            if t.sender != n, topology.rssi[t.sender][n] - t.reductionDb >= threshold, t.start + cadUs <= now {
                until = max(until ?? t.end, t.end)
            }
        }
        return until
    }

    /// Our box `n` found the channel busy: when it looks again (µs). As the daemon's listen before
    /// talk (`MeshService`): 1…``SimParameters/lookSlots`` slots from now, however long the frames
    /// it senses last; ``SimParameters/listenBeforeTalkWaitsForEnd``: when they end, then as many
    /// slots more.
    mutating func ourBusyWait(_ n: Int) -> Int64 {
        let backOff = slotUs * Int64(macRng.int(in: 1...max(1, p.lookSlots)))
        let relay = p.relaysWaitForEnd && !QuietBackOff.applies(to: header(of: nodes[n].queue[0]), me: nodes[n].id)
        guard p.listenBeforeTalkWaitsForEnd || relay, let until = sensedBusyUntil(n) else { return now + backOff }
        return until + backOff
    }

    /// The mesh header of a data frame (the router's, or the node's sealed bytes); `nil` for
    /// the simulator's control frames, which are the box's own.
    func header(of frame: Frame) -> MeshHeader? {
        switch frame {
        case .data(let header, _), .repair(let header, _), .topology(let header): return header
        case .sealed(let bytes, _): return try? MeshFrameCodec.parse(bytes).header
        default: return nil
        }
    }

    mutating func tryTransmit(_ n: Int) {
        if nodes[n].machine != nil, nodes[n].queue.isEmpty {
            machineRadioIdle(n)
            return
        }
        guard nodes[n].transmitting == nil, !nodes[n].queue.isEmpty, !nodes[n].macScheduled, !nodes[n].down else { return }
        if channelBusy(n) {
            // Listen before talk: the router says how long to wait (the baseline re-draws its
            // whole delay, ours a relay's with `relaysRedrawWhenBusy`); else back off 1…lookSlots slots.
            nodes[n].macScheduled = true
            var wait: Int64?
            if case .data(let header, _) = nodes[n].queue[0] {
                let nowD = Engine.duration(now)
                wait = nodes[n].router.with { $0.channelBusyDelay(for: header, now: nowD) }.map(Engine.micros)
            }
            schedule(wait.map { now + max(1, $0) } ?? ourBusyWait(n), .mac(n))
            return
        }
        if let held = nodes[n].machine?.answerHeldUntil, Engine.micros(held) > now,
           QuietBackOff.applies(to: header(of: nodes[n].queue[0]), me: nodes[n].id) {
            // A hidden box's answer to what was just heard (`MeshNodeMachine.Settings.quietForHiddenAnswers`),
            // as the daemon's listen before talk (`radioAnswerWaits`): own frames only.
            nodes[n].macScheduled = true
            schedule(Engine.micros(held), .mac(n))
            return
        }
        if justQuiet(n), p.quietBackOffRelays || QuietBackOff.applies(to: header(of: nodes[n].queue[0]), me: nodes[n].id) {
            // Ready as a frame ended: 1…lookSlots slots first, as the daemon (`radioQuietWaits`).
            nodes[n].macScheduled = true
            quietWaits += 1
            schedule(now + slotUs * Int64(macRng.int(in: 1...max(1, p.quietBackOffSlots ?? p.lookSlots))), .mac(n))
            return
        }
        let frame = nodes[n].queue.removeFirst()
        if case .data(let header, _) = frame {
            let nowD = Engine.duration(now)
            nodes[n].router.with { $0.wentOnAir(header, now: nowD) }
        }
        startTransmission(n, frame)
    }

    mutating func startTransmission(_ s: Int, _ frame: Frame) {
        var frame = frame
        let airUs: Int64
        var reductionDb = 0.0
        switch frame {
        case .data(let header, let reduction):
            reductionDb = reduction
            airUs = dataAirUs
            dataTx += 1
            dataAirUsTotal += airUs
            framesByKey[header.key, default: 0] += 1
            floodSenders[header.key, default: []].insert(s)
        case .hello(let payload):
            airUs = controlAirUs(payloadBytes: payload.encoded().count)
            if now >= measuredFromUs {
                helloTx += 1
                helloAirUsTotal += airUs
            }
        case .digest, .compactDigest:
            let bytes: Int
            switch frame {
            case .digest(let digest): bytes = digest.encoded().count
            case .compactDigest(let digest): bytes = digest.encoded().count
            default: bytes = 0
            }
            airUs = controlAirUs(payloadBytes: bytes)
            digestTx += 1
            digestAirUsTotal += airUs
            syncTx += 1
            syncAirUsTotal += airUs
        case .repair:
            airUs = dataAirUs
            syncTx += 1
            syncAirUsTotal += airUs
        case .topology, .topologyRequest:
            let bytes: Int
            switch frame {
            case .topology(let header): bytes = topologyPayloads[header.key]?.encoded().count ?? 0
            case .topologyRequest(let request): bytes = request.encoded().count
            default: bytes = 0
            }
            airUs = controlAirUs(payloadBytes: bytes)
            topologyTxAll += 1
            if now >= measuredFromUs {
                topologyTx += 1
                topologyAirUsTotal += airUs
            }
        case .sealed(let bytes, let repair):
            let sent = sealedTransmission(bytes, from: s, repair: repair)
            airUs = sent.airUs
            frame = .sealed(bytes, repair: sent.repair)
        }
        if now >= measuredFromUs { nodes[s].sent.append((now, airUs)) }
        let index = transmissions.count
        // Half duplex: whatever the sender was receiving is lost (not on an ideal channel).
        for rx in activeRx[s] where !p.collisionFree {
            if let k = transmissions[rx].receptions.firstIndex(where: { $0.receiver == s }) {
                if !transmissions[rx].receptions[k].lost, firstCopy(transmissions[rx].frame, at: s) { losses.halfDuplex += 1 }
                transmissions[rx].receptions[k].lost = true
            }
        }
        activeRx[s].removeAll()
        var receptions: [Reception] = []
        for r in nodes.indices where r != s {
            let rssi = topology.rssi[s][r] - reductionDb
            guard rssi >= channel.sensitivityDbm, !nodes[r].down else { continue }
            guard nodes[r].transmitting == nil || p.collisionFree else {
                if firstCopy(frame, at: r) { losses.halfDuplex += 1 }
                continue
            }
            var mine = Reception(receiver: r, rssi: rssi)
            for other in activeRx[r] where !p.collisionFree {
                // The newcomer only escapes if the other ends before it needs its preamble.
                guard transmissions[other].end > now + lockUs else { continue }
                guard let k = transmissions[other].receptions.firstIndex(where: { $0.receiver == r }) else { continue }
                let theirs = transmissions[other].receptions[k].rssi
                let loseMine = abs(rssi - theirs) < channel.captureThresholdDb || rssi < theirs
                let loseTheirs = abs(rssi - theirs) < channel.captureThresholdDb || rssi >= theirs
                if loseMine, !mine.lost {
                    mine.lost = true
                    collisions += 1
                    if now >= measuredFromUs { collisionsMeasured += 1 }
                    countLoss(of: frame, to: transmissions[other].frame, at: r, between: s, and: other)
                }
                if loseTheirs, !transmissions[other].receptions[k].lost {
                    transmissions[other].receptions[k].lost = true
                    collisions += 1
                    if now >= measuredFromUs { collisionsMeasured += 1 }
                    countLoss(of: transmissions[other].frame, to: frame, at: r, between: s, and: other)
                }
            }
            receptions.append(mine)
            activeRx[r].append(index)
        }
        transmissions.append(Transmission(sender: s, frame: frame, start: now, end: now + airUs, reductionDb: reductionDb, receptions: receptions))
        nodes[s].transmitting = index
        onAir.append(index)
        schedule(now + airUs, .txEnd(index))
    }

    /// Whether `frame` is a flood's data frame whose packet box `r` does not hold yet: a copy
    /// that would have been useful there.
    func firstCopy(_ frame: Frame, at r: Int) -> Bool {
        guard case .data(let header, _) = frame else { return false }
        return !nodes[r].seen.contains(header.key)
    }

    /// Counts a first copy of `lost` that box `r` lost to `cause`: the newcomer `s` started
    /// while transmission `other` was on air. Hidden: the later sender could not hear the
    /// earlier one; audible: it could (with listen before talk, only when it sensed the channel
    /// within one activity-detection time of the other's start).
    mutating func countLoss(of lost: Frame, to cause: Frame, at r: Int, between s: Int, and other: Int) {
        guard firstCopy(lost, at: r), case .data(let lostHeader, _) = lost else { return }
        guard case .data(let causeHeader, _) = cause else {
            losses.controlFrames += 1
            return
        }
        let earlier = transmissions[other]
        let hidden = topology.rssi[earlier.sender][s] - earlier.reductionDb < channel.cadThresholdDbm
        switch (hidden, lostHeader.key == causeHeader.key) {
        case (true, true): losses.hiddenSamePacket += 1
        case (true, false): losses.hiddenOtherPacket += 1
        case (false, true): losses.audibleSamePacket += 1
        case (false, false): losses.audibleOtherPacket += 1
        }
    }

    /// Time on air of a hello or digest of `payloadBytes`, µs (with its frame overhead).
    func controlAirUs(payloadBytes: Int) -> Int64 {
        Int64(LoRaAirtime.seconds(payloadBytes: payloadBytes + p.helloOverheadBytes, modulation: channel.modulation) * 1_000_000)
    }

    mutating func finish(_ index: Int) {
        let tx = transmissions[index]
        nodes[tx.sender].transmitting = nil
        onAir.removeAll { $0 == index }
        if modelsQuietBackOff {
            let threshold = senseThresholdDbm
            for m in nodes.indices where m != tx.sender && topology.rssi[tx.sender][m] - tx.reductionDb >= threshold {
                nodes[m].quietSince = now
            }
        }
        let nowD = Engine.duration(now)
        if case .repair(let h, let relay) = tx.frame {
            repairs.relayed += relay ? 1 : 0
            if !tx.receptions.contains(where: { !$0.lost && !nodes[$0.receiver].down && !nodes[$0.receiver].seen.contains(h.key) }) {
                repairs.wasted += 1
            }
        }
        for reception in tx.receptions {
            let r = reception.receiver
            activeRx[r].removeAll { $0 == index }
            guard !reception.lost, !nodes[r].down else { continue }
            noteHeard(r, start: tx.start)
            let link = LinkQuality(rssi: reception.rssi, snr: reception.rssi - channel.noiseLevelDbm)
            let actions: [RouterAction]
            switch tx.frame {
            case .data(let header, _):
                dataReceptions += 1
                receptionsByKey[header.key, default: 0] += 1
                let first = nodes[r].seen.insert(header.key).inserted
                if first, let t0 = originTime[header.key] {
                    useful += 1
                    reachedByKey[header.key, default: 0] += 1
                    latenciesUs.append(now - t0)
                    if let m = messageIndex[header.key] { receptionLatencies[m * p.nodes + r] = now - t0 }
                    nodes[r].heldAt[header.key] = now
                    nodes[r].floodHeld.insert(header.key)
                    nodes[r].lastFloodAt = now
                    if p.repairResetOnNewPacket, var timer = nodes[r].trickle {
                        // New data (RFC 6206): tell the neighbourhood soon.
                        timer.inconsistent(now: nowD)
                        nodes[r].trickle = timer
                        rescheduleTrickle(r)
                    }
                }
                actions = nodes[r].router.with { $0.heard(header, link: link, firstTime: first, now: nowD) }
            case .hello(let payload):
                let from = nodes[tx.sender].id
                actions = nodes[r].router.with { $0.heardHello(from: from, payload: payload, link: link, now: nowD) }
            case .digest(let digest):
                heardDigest(digest, from: tx.sender, at: r)
                actions = []
            case .compactDigest(let digest):
                heardDigest(digest, from: tx.sender, at: r)
                actions = []
            case .repair(let header, _):
                heardRepair(header, link: link, at: r)
                continue
            case .topology where nodes[r].olderBuild:
                // Frame kind 6 is unknown to a build from before the plan: dropped as malformed.
                olderBuildDrops += 1
                continue
            case .topology(let header):
                // An older advert than the one the box holds (an answer from a box that kept it
                // from before a change) is taken as a duplicate.
                let older = nodes[r].router.isOlderAdvert(header)
                let first = nodes[r].topologySeen.insert(header.key).inserted && !older
                if first, let payload = topologyPayloads[header.key] {
                    if case .ours(var router) = nodes[r].router {
                        router.heardTopology(from: header.origin, payload: payload, now: nowD)
                        nodes[r].router = .ours(router)
                    }
                }
                actions = nodes[r].router.with { $0.heard(header, link: link, firstTime: first, now: nowD) }
            case .topologyRequest(let request):
                let from = nodes[tx.sender].id
                if case .ours(var router) = nodes[r].router {
                    router.heardTopologyRequest(from: from, boxes: request.boxes, now: nowD)
                    nodes[r].router = .ours(router)
                }
                actions = []
            case .sealed(let bytes, let repair):
                machineHeard(bytes, link: link, at: r, repair: repair)
                continue
            }
            apply(actions, at: r)
        }
        if case .data(let header, _) = tx.frame, header.hopsTaken > 0, originTime[header.key] != nil,
           let reason = relayReasons[tx.sender]?[header.key] {
            tallyRelay(tx, header.key, reason)
        }
        tryTransmit(tx.sender)
    }

    /// Counts a relay of `reason` that just ended: the first copies it brought (boxes whose
    /// packet arrived now), and when none, whether any box in range still lacked the packet.
    mutating func tallyRelay(_ tx: Transmission, _ key: PacketKey, _ reason: MeshRouter.RelayReason) {
        var figures = relayFigures[reason] ?? RelayFigures()
        figures.frames += 1
        let brought = tx.receptions.filter { !$0.lost && nodes[$0.receiver].heldAt[key] == now }.count
        figures.firstCopies += Double(brought)
        if brought == 0 {
            let lacked = tx.receptions.contains { !nodes[$0.receiver].down && (nodes[$0.receiver].heldAt[key].map { $0 >= tx.start } ?? true) }
            if lacked { figures.allLost += 1 } else { figures.reachedNobody += 1 }
        }
        relayFigures[reason] = figures
    }

    // MARK: Results

    mutating func result() -> SimResult {
        let n = p.nodes
        // With node machines, the broadcasts sent (directed messages have their own figures).
        let m = max(nodes.first?.machine != nil ? originNode.count : p.messages, 1)
        var connectedPossible = 0
        var connectedBefore = 0
        var components: [PacketKey: Set<Int>] = [:]
        var connectedAfter = 0
        var connectedWithin = 0
        let windowUs = Engine.micros(p.repairWindow)
        for key in originNode.keys.sorted() {
            let origin = originNode[key]!
            let comp = topology.connected(from: origin, sensitivity: channel.sensitivityDbm)
            components[key] = comp
            connectedPossible += comp.count - 1
            for box in comp where box != origin {
                if nodes[box].floodHeld.contains(key) { connectedBefore += 1 }
                if nodes[box].seen.contains(key) { connectedAfter += 1 }
                if let at = nodes[box].heldAt[key], at <= originTime[key]! + windowUs { connectedWithin += 1 }
            }
        }
        let syncTx = self.syncTx
        let syncAirUs = syncAirUsTotal
        // Relays cancelled by the router before they were handed out, plus those dropped from the radio queue.
        var counters = (cancelled: cancelled, pruned: 0, retries: 0)
        for node in nodes {
            if let machine = node.machine {
                counters.cancelled += machine.allCounters.relaysCancelled
                counters.pruned += machine.routerCounters.relaysPruned
                counters.retries += machine.routerCounters.implicitAckRetries
                continue
            }
            switch node.router {
            case .ours(let r):
                counters.cancelled += r.counters.relaysCancelled
                counters.pruned += r.counters.relaysPruned
                counters.retries += r.counters.implicitAckRetries
            case .flooding(let r):
                counters.cancelled += r.cancelledCount
                counters.retries += r.retransmissionsSent
            }
        }
        var plan = (transmissions: 0, reached: 0, receptions: 0)
        let rssi = topology.rssi, sensitivity = channel.sensitivityDbm
        for key in originNode.keys.sorted() {
            let b = BroadcastPlan(origin: originNode[key]!, count: n) { s, r in rssi[s][r] >= sensitivity }
            plan.transmissions += b.transmissions
            plan.reached += b.reached
            plan.receptions += b.receptions
        }
        referenceOutcomes = referencePlanOutcomes()
        let referencePlans = referencePlanFigures(referenceOutcomes, against: nil)
        let sorted = latenciesUs.sorted()
        func percentile(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let i = min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))
            return Double(sorted[i]) / 1000
        }
        var links = 0
        for s in 0..<n { for r in 0..<n where r != s && topology.rssi[s][r] >= channel.sensitivityDbm { links += 1 } }
        var result = SimResult(
            router: p.router.rawValue, nodes: n, seed: p.seed,
            reachability: Double(useful) / Double(m * (n - 1)),
            usefulness: dataReceptions == 0 ? 0 : Double(useful) / Double(dataReceptions),
            transmissionsPerBroadcast: Double(dataTx) / Double(m),
            airtimePerDeliveredMs: useful == 0 ? 0 : Double(dataAirUsTotal) / 1000 / Double(useful),
            collisions: collisions, latencyP50Ms: percentile(0.5), latencyP95Ms: percentile(0.95),
            messages: p.messages, hopLimit: Int(p.hopLimit),
            connectedReachability: connectedPossible == 0 ? 1 : Double(connectedBefore) / Double(connectedPossible),
            reachabilityAfterSync: connectedPossible == 0 ? 1 : Double(connectedAfter) / Double(connectedPossible),
            connectedReachWithinRepairWindow: connectedPossible == 0 ? 1 : Double(connectedWithin) / Double(connectedPossible),
            dataAirtimeMs: Double(dataAirUsTotal) / 1000,
            totalAirtimeMs: Double(dataAirUsTotal + helloAirUsTotal + syncAirUs + topologyAirUsTotal) / 1000,
            helloTransmissions: helloTx, helloAirtimeMs: Double(helloAirUsTotal) / 1000,
            syncTransmissions: syncTx, syncAirtimeMs: Double(syncAirUs) / 1000,
            relaysCancelled: counters.cancelled, relaysPruned: counters.pruned, retries: counters.retries, meanDegree: Double(links) / Double(n),
            shortIDCollisionShare: shortIDCollisionShare(),
            planTransmissions: Double(plan.transmissions) / Double(m),
            reachabilityBound: Double(plan.reached) / Double(m * (n - 1)),
            usefulnessBound: plan.receptions == 0 ? 1 : Double(plan.reached) / Double(plan.receptions))
        if !p.collisionFree { result.collisionsMeasured = collisionsMeasured }
        if modelsQuietBackOff { result.quietWaits = quietWaits }
        if nodes.first?.machine == nil, !p.collisionFree { result.usefulLosses = losses.perMessage(m) }
        if p.router == .ours, nodes.first?.machine == nil {
            var byReason: [String: RelayFigures] = [:]
            for reason in MeshRouter.RelayReason.allCases {
                let f = relayFigures[reason] ?? RelayFigures()
                var perMessage = RelayFigures()
                perMessage.frames = f.frames / Double(m)
                perMessage.firstCopies = f.firstCopies / Double(m)
                perMessage.reachedNobody = f.reachedNobody / Double(m)
                perMessage.allLost = f.allLost / Double(m)
                byReason[reason.rawValue] = perMessage
            }
            result.relaysByReason = byReason
        }
        if nodes.first?.machine == nil {
            let heard = rssi.map { row in row.map { $0 >= sensitivity } }
            var missed = MissedReach()
            for key in originNode.keys.sorted() {
                let held = Set((0..<n).filter { nodes[$0].floodHeld.contains(key) })
                missed.count(heard: heard, origin: originNode[key]!, held: held, senders: floodSenders[key] ?? [])
            }
            result.missedReach = missed.share(of: m * (n - 1))
        }
        result.mprTransmissions = referencePlans["multipointRelays"]?.transmissions
        result.mprReachability = referencePlans["multipointRelays"]?.reachability
        result.referencePlans = referencePlans
        let duty = transmitDuty(span: runEndUs - measuredFromUs)
        result.txDutyMean = duty.mean
        result.txDutyMax = duty.max
        if nodes.first?.machine != nil { addMachineFigures(to: &result) }
        if !neighbourSamples.isEmpty {
            result.neighboursKnownMean = neighbourSamples.reduce(0, +) / Double(neighbourSamples.count)
            result.neighboursKnownLowest = neighbourSamples.min()
        }
        if p.recordReceptionLatencies, nodes.first?.machine == nil {
            result.receptionLatenciesMs = receptionLatencies.map { $0 < 0 ? -1 : Double($0) / 1000 }
        }
        if p.ourConfiguration.topologyPlan, p.router == .ours {
            // A node machine's router is inside the machine; its counters say the same.
            result.topologyAdverts = p.nodeMachine ? nodes.reduce(0) { $0 + ($1.machine?.allCounters.topologyAdverts ?? 0) } : topologyAdverts
            result.topologyFramesAll = topologyTxAll
            let routerCounters = nodes.compactMap { node -> MeshRouter.Counters? in
                if let machine = node.machine { return machine.routerCounters }
                if case .ours(let r) = node.router { return r.counters }
                return nil
            }
            result.topologyRequests = routerCounters.reduce(0) { $0 + $1.topologyRequests }
            result.topologyListsAsked = routerCounters.reduce(0) { $0 + $1.topologyListsAsked }
            result.topologyAnswers = routerCounters.reduce(0) { $0 + $1.topologyAnswers }
            result.topologyAnswersHeldOff = routerCounters.reduce(0) { $0 + $1.topologyAnswersHeldOff }
            result.topologyFloodsHeldByBudget = routerCounters.reduce(0) { $0 + $1.topologyFloodsHeldByBudget }
            result.topologyTransmissions = topologyTx
            result.topologyAirtimeMs = Double(topologyAirUsTotal) / 1000
            result.topologyKnownShare = topologyKnownShare
            result.topologyKnowableShare = topologyKnowableShare
            result.topologyPlanAgreement = topologyPlanAgreement
            if p.boxesOfOlderBuild > 0 {
                result.topologyDroppedByOlderBuilds = olderBuildDrops
                result.boxesOfOlderBuild = nodes.indices.filter { nodes[$0].olderBuild }
            }
            result.plannedRelays = nodes.reduce(0) {
                if let machine = $1.machine { return $0 + machine.allCounters.plannedRelays }
                if case .ours(let r) = $1.router { return $0 + r.counters.plannedRelays }
                return $0
            }
            if p.nodeMachine { result.lateRelaysTakenBack = nodes.reduce(0) { $0 + ($1.machine?.allCounters.lateRelaysTakenBack ?? 0) } }
        }
        if p.router == .ours, p.reconcile, !p.nodeMachine {
            result.digestTransmissions = digestTx
            result.digestAirtimeMs = Double(digestAirUsTotal) / 1000
            result.repairTransmissions = syncTx - digestTx
            result.repairsRelayed = repairs.relayed
            result.repairsWasted = repairs.wasted
            result.repairsHeldOff = heldOff
        }
        return result
    }

    /// Each box's own time on air from the end of the warm-up to the end of the run: the mean
    /// share of that span over boxes, and the busiest box's most airtime in any one hour, as a
    /// share of the hour (`TransmitDuty`).
    func transmitDuty(span: Int64) -> (mean: Double, max: Double) {
        guard span > 0, !nodes.isEmpty else { return (0, 0) }
        let hour = Int64(3_600) * 1_000_000
        var total = 0.0
        var busiest: Int64 = 0
        for node in nodes {
            total += Double(node.sent.reduce(0) { $0 + $1.airUs }) / Double(span)
            busiest = max(busiest, TransmitDuty.busiestWindow(node.sent, window: hour))
        }
        return (total / Double(nodes.count), Double(busiest) / Double(hour))
    }

    /// Digests covering all of `held`: origins split into groups whose runs fit one frame.
    static func digests(of held: Set<PacketKey>) -> [SyncDigest] {
        var byOrigin: [NodeID: [PacketKey]] = [:]
        for key in held { byOrigin[key.origin, default: []].append(key) }
        var out: [SyncDigest] = []
        var batch: [PacketKey] = []
        var batchRuns = 0
        for origin in byOrigin.keys.sorted() {
            let keys = byOrigin[origin]!
            let runs = SyncDigest(held: keys, maxRanges: SyncDigest.maxRanges).runs.count
            if batchRuns + runs > SyncDigest.maxRanges, !batch.isEmpty {
                out.append(SyncDigest(held: batch))
                batch = []
                batchRuns = 0
            }
            batch += keys
            batchRuns += runs
        }
        if !batch.isEmpty { out.append(SyncDigest(held: batch)) }
        // Several frames each describe part of the holdings: mark them incomplete, so a
        // peer judges only the origins a frame lists.
        if out.count > 1 { out = out.map { SyncDigest(runs: $0.runs, complete: false) } }
        return out
    }
}
