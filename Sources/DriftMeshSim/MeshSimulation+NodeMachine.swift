import DriftMesh
import Foundation

/// The daemon's node as a simulated box runs it.
typealias SimNodeMachine = MeshNodeMachine<InMemoryNodeMemory>

/// What the node machines sent and how it went (`SimParameters.nodeMachine`).
struct MachineRecord {
    /// Directed messages: origin, destination, when sent.
    var directed: [PacketKey: (origin: Int, destination: Int, at: Int64)] = [:]
    /// When each directed message first reached its destination.
    var deliveredAt: [PacketKey: Int64] = [:]
    /// Directed messages whose acknowledgement reached their origin.
    var confirmed: Set<PacketKey> = []
    /// Airtime of the data frames that were not the flood's (`Frame.sealed`'s `repair`), µs.
    var repairDataAirUs: Int64 = 0
    /// Those frames: catch-up copies and the relays of what their senders got by catch-up.
    var repairDataTx = 0
    /// …of which went on air when every box in range of the sender held the broadcast already.
    var repairDataUnneeded = 0
    /// Digests and requests sent before the first message (every box meeting its neighbours), µs.
    var warmUpSyncAirUs: Int64 = 0
    /// Hellos sent before the first message, and their airtime, µs.
    var warmUpHelloTx = 0
    var warmUpHelloAirUs: Int64 = 0
    /// Of the digests from the first message on, the full ones (``SyncDigest``) and their
    /// airtime, µs; the rest are paced repair's compact digests.
    var fullDigestTx = 0
    var fullDigestAirUs: Int64 = 0
    /// Each box's time held back by its airtime budget, per class, when the messages began
    /// (``MeshNodeMachine/budgetHeld(at:)``): the figures count from then on, to the run's end.
    var budgetHeldAtWarmUpEnd: [Int: [TransmitPriority: Duration]] = [:]
    /// …and the relays each had sent by then.
    var relaysAtWarmUpEnd: [Int: Int] = [:]
}

/// `SimParameters.nodeMachine`: each box is a `MeshNodeMachine` on in-memory memory, driven
/// the way `MeshNode` and `MeshService` drive it in the daemon — a frame heard or a message
/// sent is followed by the timers (the daemon's doorbell rings its scheduler), the radio is
/// offered to the machine whenever it is free, and the machine's `wake(at:)` becomes an event.
/// Frames are the machine's sealed bytes; the channel, listen-before-talk and collisions are the
/// simulator's, as for the router alone.
extension Engine {
    /// The mesh key every simulated box shares.
    static let machineNetworkKey = [UInt8](repeating: 0x5A, count: 32)
    /// Opens the boxes' digests to tell full ones from compact ones.
    static let machineSealer = try! MeshSealer(networkKey: machineNetworkKey)
    /// Wall time at simulated time zero (expiry minutes and the memories' times count from it).
    static let machineEpoch = Date(timeIntervalSince1970: 1_780_000_000)

    /// Key pairs from the seed (their node ids are the boxes' ids: random, low bytes may collide).
    static func keyPairs(count: Int, seed: UInt64) -> [BoxKeyPair] {
        var rng = MeshRandom(seed: seed ^ 0x6B65_7970_6169_7273)
        var pairs: [BoxKeyPair] = []
        var taken: Set<NodeID> = [.broadcast]
        while pairs.count < count {
            let raw = (0..<32).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            guard let pair = try? BoxKeyPair(rawPrivateKey: raw), taken.insert(pair.nodeID).inserted else { continue }
            pairs.append(pair)
        }
        return pairs
    }

    /// A box's node: our router's simulator tuning, the catch-up rules of `p.catchUp`, the duty
    /// cycle of `p.dutyCycle` (default none: the US band), frames up to 255 bytes.
    static func machine(_ keyPair: BoxKeyPair, configuration: MeshRouterConfiguration, parameters p: SimParameters,
                        memory: InMemoryNodeMemory = InMemoryNodeMemory()) -> SimNodeMachine? {
        let rules = p.catchUp
        var configuration = configuration
        if !rules.learnNeighbours { configuration.neighbourLearningPeriod = .zero }
        configuration.firstHelloSpread = rules.firstHelloSpread ?? p.helloPeriod / 10
        var settings = SimNodeMachine.Settings(hopLimit: p.hopLimit, messageLifetime: 3_600, modulation: p.channel.modulation,
                                               router: configuration)
        settings.announcesAtStart = rules.announceAtStart
        settings.answersRepeatedRequests = rules.answerRepeatedRequests
        settings.compactLacksAskAgain = rules.compactLacksAskAgain
        settings.lacksAfterCopiesAskAgain = rules.lacksAfterCopiesAskAgain
        settings.repairAnswersBoxesJustStarted = rules.repairAnswersBoxesJustStarted
        settings.newNeighbourDigestsShared = rules.newNeighbourDigestsShared
        settings.digestsAfterStartFollowedUp = rules.digestsAfterStartFollowedUp
        settings.digestRepeatsDelayed = rules.digestRepeatsDelayed
        settings.outboxLooksWithHousekeeping = rules.outboxLooksWithHousekeeping
        settings.digestOriginsRotate = rules.digestOriginsRotate
        settings.answersSpread = rules.answersSpread
        settings.backgroundYieldsToBackground = rules.backgroundYieldsToBackground
        settings.backgroundBusyThreshold = rules.backgroundBusyThreshold
        settings.hellosWaitOnePeriodAtMost = rules.hellosWaitOnePeriodAtMost
        settings.compactDigestWindowShrinks = rules.compactDigestWindowShrinks
        settings.compactDigestCoding = rules.compactDigestCoding
        settings.lastHopRetry = rules.lastHopRetry
        settings.lastHopRetryOnlyWhenQuiet = rules.lastHopRetryOnlyWhenQuiet
        settings.lastHopRetryRounds = rules.lastHopRetryRounds
        settings.quickRetryKeepsSchedule = rules.quickRetryKeepsSchedule
        settings.quickRetryRounds = rules.quickRetryRounds
        settings.firstHopRetry = rules.firstHopRetry
        settings.retriesArmedOnceTheWayIsKnown = rules.retriesArmedOnceTheWayIsKnown
        settings.retryJitter = rules.retryJitter
        settings.outboxRetryJitter = rules.outboxRetryJitter
        settings.quietForHiddenAnswers = rules.quietForHiddenAnswers
        settings.acksRepeatedForRetriesOnly = rules.acksRepeatedForRetriesOnly
        settings.retryRelaysJittered = rules.retryRelaysJittered
        settings.retryRelaysSuppressed = rules.retryRelaysSuppressed
        settings.repairAnswersRenewed = p.repairAnswersRenewed
        settings.repairAnswersRenewedWhenHeard = p.nodeRepairAnswersRenewedWhenHeard
        settings.answerWindowFrames = rules.answerWindowFrames
        settings.requestAttempts = rules.requestAttempts
        settings.digestFollowUps = rules.digestFollowUps
        if p.nodeRepair {
            settings.pacedRepair = .init(minimumInterval: p.repairMinimumInterval, doublings: p.nodeRepairDoublings, redundancy: p.nodeRepairRedundancy,
                                         lackingUnsuppressed: p.nodeRepairLackingUnsuppressed,
                                         digestsNeighboursInRepair: p.nodeDigestsNeighboursInRepair,
                                         fullDigestWhenLackingAfter: p.nodeFullDigestWhenLackingAfter,
                                         suppressionCoversNeighbours: p.nodeRepairSuppressionCoversNeighbours,
                                         digestsWhileAlone: p.nodeDigestsWhileAlone,
                                         longerAboveBudgetShare: p.nodeRepairLongerAboveBudgetShare,
                                         digestRepeatsForNeighboursInRepair: p.nodeDigestRepeatsForNeighboursInRepair)
        }
        return try? SimNodeMachine(keyPair: keyPair, networkKey: machineNetworkKey, memory: memory,
                                   budget: AirtimeBudget(window: .seconds(3_600), limit: p.dutyCycle.map { .seconds(3_600) * $0 }), settings: settings,
                                   seed: p.seed ^ UInt64(keyPair.nodeID.rawValue) ^ p.dynamicsSalt)
    }

    func machineTime() -> MeshNodeTime {
        MeshNodeTime(monotonic: Engine.duration(now), wall: Engine.machineEpoch.addingTimeInterval(Double(now) / 1_000_000))
    }

    /// Hands `input` to box `n`'s machine and carries out its actions; `wake(at:)` schedules a
    /// timer after `.timer`, a radio wake-up after `.radioIdle`. Returns the send answer.
    @discardableResult
    mutating func feed(_ input: MeshNodeInput, to n: Int) -> MeshNodeReceipt? {
        guard var machine = nodes[n].machine, !nodes[n].down else { return nil }
        let actions = machine.handle(input, at: machineTime())
        nodes[n].machine = machine
        var receipt: MeshNodeReceipt?
        for action in actions {
            switch action {
            case .transmit(let frame):
                nodes[n].queue.append(.sealed(frame.bytes, repair: frame.priority == .background))
            case .wake(let at):
                let atUs = max(now, Engine.micros(at))
                if case .radioIdle = input {
                    nodes[n].radioAt = atUs
                    schedule(atUs, .radio(n))
                } else if nodes[n].timerAt != atUs {
                    nodes[n].timerAt = atUs
                    schedule(atUs, .timer(n))
                }
            case .deliver(let delivery):
                machineDelivered(delivery, at: n)
            case .confirmed(let key):
                machines.confirmed.insert(key)
            case .stored(let stored):
                receipt = stored
            case .bridge, .refused, .verdict, .log:
                break
            }
        }
        return receipt
    }

    /// The timers of box `n` (router, outbox, housekeeping), then its radio if it is free.
    mutating func machineTimer(_ n: Int) {
        feed(.timer, to: n)
        machineRadioIdle(n)
    }

    /// Box `n`'s radio is free: the machine may hand it a frame.
    mutating func machineRadioIdle(_ n: Int) {
        guard nodes[n].machine != nil, !nodes[n].down, nodes[n].transmitting == nil, !nodes[n].macScheduled,
              nodes[n].queue.isEmpty else { return }
        feed(.radioIdle, to: n)
        if !nodes[n].queue.isEmpty { tryTransmit(n) }
    }

    /// Box `r` decoded `bytes`; a broadcast it gets for the first time from a frame that was
    /// not the flood's (`repair`) is one it got by catch-up: its relay of it is not the flood's
    /// either.
    mutating func machineHeard(_ bytes: [UInt8], link: LinkQuality, at r: Int, repair: Bool) {
        var gotByRepair: PacketKey?
        let header = try? MeshFrameCodec.parse(bytes).header
        if nodes[r].olderBuild, header?.kind == .topology {
            // Frame kind 6 is unknown to a build from before the plan: its parser drops it.
            olderBuildDrops += 1
            return
        }
        if let header, header.kind.carriesData {
            dataReceptions += 1
            receptionsByKey[header.key, default: 0] += 1
            if repair, !nodes[r].seen.contains(header.key) { gotByRepair = header.key }
        }
        feed(.heard(bytes: bytes, rssi: link.rssi, snr: link.snr), to: r)
        if let key = gotByRepair, nodes[r].seen.contains(key) { nodes[r].repairHeld.insert(key) }
        machineTimer(r)
    }

    mutating func machineChannelBusy(_ r: Int, _ busy: Bool) {
        feed(.channelBusy(busy), to: r)
    }

    /// Box `n` sends a message of one data frame (`dataFrameBytes` on air for a broadcast).
    mutating func machineOriginate(at n: Int, to destination: Int?) {
        guard !nodes[n].down else { return }
        let overhead = MeshFrameCodec.overheadBytes(hasDestination: false, fragmented: false, originTagged: false)
        let body = [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: max(1, p.dataFrameBytes - overhead - 1))
        let to = destination.flatMap { nodes.indices.contains($0) && $0 != n ? nodes[$0].id : nil }
        guard let receipt = feed(.send(MeshNodeMessage(payload: [1] + body, destination: to)), to: n) else { return }
        let key = PacketKey(origin: nodes[n].id, packetID: receipt.packetID)
        if to != nil, let d = destination {
            machines.directed[key] = (n, d, now)
        } else {
            nodes[n].seen.insert(key)
            nodes[n].heldAt[key] = now
            originTime[key] = now
            originNode[key] = n
        }
        machineTimer(n)
    }

    mutating func machineDelivered(_ delivery: MeshNodeDelivery, at r: Int) {
        let key = delivery.key
        if let directed = machines.directed[key] {
            if directed.destination == r, machines.deliveredAt[key] == nil { machines.deliveredAt[key] = now }
            return
        }
        guard let t0 = originTime[key], nodes[r].seen.insert(key).inserted else { return }
        useful += 1
        reachedByKey[key, default: 0] += 1
        latenciesUs.append(now - t0)
        nodes[r].heldAt[key] = now
        nodes[r].floodHeld.insert(key)
    }

    /// Counts box `s`'s frame going on air by kind; returns its time on air, µs, and whether it
    /// is a data frame that is not the flood's: a catch-up copy (`repair`, its priority) or a
    /// relay of a packet `s` got by catch-up.
    mutating func sealedTransmission(_ bytes: [UInt8], from s: Int, repair: Bool) -> (airUs: Int64, repair: Bool) {
        let airUs = Int64(LoRaAirtime.seconds(payloadBytes: bytes.count, modulation: channel.modulation) * 1_000_000)
        guard let header = try? MeshFrameCodec.parse(bytes).header else { return (airUs, false) }
        var notFlood = false
        if header.kind.carriesData {
            dataTx += 1
            dataAirUsTotal += airUs
            framesByKey[header.key, default: 0] += 1
            notFlood = repair || nodes[s].repairHeld.contains(header.key)
            if notFlood {
                // Broadcasts only: `seen` holds no directed message.
                let needed = originTime[header.key] == nil || (0..<nodes.count).contains { r in
                    r != s && !nodes[r].down && topology.rssi[s][r] >= channel.sensitivityDbm && !nodes[r].seen.contains(header.key)
                }
                if !needed { machines.repairDataUnneeded += 1 }
                machines.repairDataAirUs += airUs
                machines.repairDataTx += 1
            }
        } else if header.kind == .hello {
            if now >= measuredFromUs {
                helloTx += 1
                helloAirUsTotal += airUs
            } else {
                machines.warmUpHelloTx += 1
                machines.warmUpHelloAirUs += airUs
            }
        } else if header.kind == .topology {
            // Counted as the router-only runs count adverts: every frame, and its airtime from
            // the first message on.
            topologyTxAll += 1
            if now >= measuredFromUs {
                topologyTx += 1
                topologyAirUsTotal += airUs
            }
        } else if now < measuredFromUs {
            // Counted from the first message on, as the router-only runs count their repair.
            machines.warmUpSyncAirUs += airUs
        } else {
            syncTx += 1
            syncAirUsTotal += airUs
            if header.kind == .digest {
                digestTx += 1
                digestAirUsTotal += airUs
                if let opened = try? Self.machineSealer.open(bytes), (try? SyncDigest(decoding: opened.plaintext)) != nil {
                    machines.fullDigestTx += 1
                    machines.fullDigestAirUs += airUs
                }
            }
        }
        return (airUs, notFlood)
    }

    /// Box `n` is switched off: it hears and sends nothing; what its radio queued is lost.
    mutating func switchOff(_ n: Int) {
        nodes[n].down = true
        nodes[n].queue.removeAll()
        nodes[n].timerAt = nil
        nodes[n].radioAt = nil
    }

    /// Box `n` is switched on: a new machine on the memory the old one left (the daemon restarting).
    mutating func switchOn(_ n: Int) {
        guard nodes[n].down else { return }
        guard let old = nodes[n].machine else {
            // The router alone, starting late (`SimParameters.startSpread`).
            nodes[n].down = false
            nodes[n].timerAt = nil
            schedule(now, .timer(n))
            return
        }
        nodes[n].down = false
        let keyPair = Engine.keyPairs(count: n + 1, seed: p.seed)[n]
        nodes[n].machine = Engine.machine(keyPair, configuration: old.settings.router, parameters: p, memory: old.memory)
        // A restarted daemon's node has heard nothing yet.
        nodes[n].channel = ChannelBusyDetector(threshold: p.busyUtilisation, window: p.busyWindow)
        nodes[n].channelCheckAt = nil
        machineTimer(n)
    }

    /// The messages of the run: the script, or drawn (with node machines, `directedShare` of
    /// them to one other box).
    mutating func messageSchedule(from start: Int64) -> [(time: Int64, origin: Int, destination: Int?)] {
        if let script = p.script {
            return script.sorted { $0.at < $1.at }.map { (start + Engine.micros($0.at), $0.from, $0.to) }
        }
        let drawn = drawMessages(from: start)
        guard p.nodeMachine, p.directedShare > 0, p.nodes > 1 else { return drawn.map { ($0.time, $0.origin, nil) } }
        var rng = MeshRandom(seed: p.seed ^ 0xD1EC_7ED0_0000_0001)
        return drawn.map { message in
            guard rng.unit() < p.directedShare else { return (message.time, message.origin, nil) }
            let other = rng.int(in: 0...(p.nodes - 2))
            return (message.time, message.origin, other >= message.origin ? other + 1 : other)
        }
    }

    /// The node machines' own figures.
    func addMachineFigures(to result: inout SimResult) {
        result.nodeMachine = true
        result.messages = originNode.count
        let directed = machines.directed.count
        // Every message counts here: data frames per message, and a directed message's
        // first decoding at its destination is a useful reception too.
        result.transmissionsPerBroadcast = Double(dataTx) / Double(max(1, originNode.count + directed))
        result.usefulness = dataReceptions == 0 ? 0 : Double(useful + machines.deliveredAt.count) / Double(dataReceptions)
        result.directedMessages = directed
        result.directedDelivered = directed == 0 ? nil : Double(machines.deliveredAt.count) / Double(directed)
        result.directedConfirmed = directed == 0 ? nil : Double(machines.confirmed.intersection(machines.directed.keys).count) / Double(directed)
        let latencies = machines.deliveredAt.compactMap { key, at in machines.directed[key].map { at - $0.at } }.sorted()
        result.directedLatencyP50Ms = latencies.isEmpty ? nil : Double(latencies[(latencies.count - 1) / 2]) / 1000
        result.directedLatencyP95Ms = latencies.isEmpty ? nil : Double(latencies[max(0, Int((0.95 * Double(latencies.count)).rounded(.up)) - 1)]) / 1000
        var retries = 0
        var catchUp = 0
        for node in nodes {
            guard let machine = node.machine else { continue }
            catchUp += machine.allCounters.framesResent
            for entry in machine.memory.outbox.values where entry.destination != nil {
                retries += max(0, entry.attempts - 1)
            }
        }
        result.outboxRetries = retries
        result.lastHopRetries = nodes.reduce(0) { $0 + ($1.machine?.allCounters.lastHopRetries ?? 0) }
        result.firstHopRetries = nodes.reduce(0) { $0 + ($1.machine?.allCounters.firstHopRetries ?? 0) }
        result.retriesArmedLate = nodes.reduce(0) { $0 + ($1.machine?.allCounters.retriesArmedLate ?? 0) }
        result.acksRepeated = nodes.reduce(0) { $0 + ($1.machine?.allCounters.acksRepeated ?? 0) }
        result.catchUpFrames = catchUp
        result.floodDataAirtimeMs = Double(dataAirUsTotal - machines.repairDataAirUs) / 1000
        result.digestTransmissions = digestTx
        result.digestAirtimeMs = Double(digestAirUsTotal) / 1000
        result.fullDigestTransmissions = machines.fullDigestTx
        result.fullDigestAirtimeMs = Double(machines.fullDigestAirUs) / 1000
        result.warmUpSyncAirtimeMs = Double(machines.warmUpSyncAirUs) / 1000
        result.warmUpHelloTransmissions = machines.warmUpHelloTx
        result.warmUpHelloAirtimeMs = Double(machines.warmUpHelloAirUs) / 1000
        result.followUpHellos = nodes.reduce(0) { $0 + ($1.machine?.routerCounters.followUpHellos ?? 0) }
        result.catchUpDataFrames = machines.repairDataTx
        result.catchUpReceptions = nodes.reduce(0) { $0 + $1.repairHeld.count }
        result.catchUpUnneededFrames = machines.repairDataUnneeded
        if p.dutyCycle != nil { addBudgetFigures(to: &result) }
        addReturnFigures(to: &result)
    }

    /// How long the boxes' budgets held their frames back from the first message on: seconds
    /// per run over all boxes, split by the class of the frame that waited (flood and the
    /// box's own messages against catch-up, digests and hellos), the boxes held at all, and
    /// the mean per box among the fifth of boxes that relayed most against the rest — whether
    /// the budget binds where the relaying is.
    func addBudgetFigures(to result: inout SimResult) {
        var foreground = Duration.zero, background = Duration.zero
        var perBox: [(relays: Int, held: Duration)] = []
        for i in nodes.indices {
            guard let machine = nodes[i].machine else { continue }
            let before = machines.budgetHeldAtWarmUpEnd[i] ?? [:]
            var box = Duration.zero
            for (priority, total) in machine.budgetHeld(at: Engine.duration(runEndUs)) {
                let since = total - (before[priority] ?? .zero)
                box += since
                if priority == .background { background += since } else { foreground += since }
            }
            perBox.append((machine.allCounters.sentRelays - (machines.relaysAtWarmUpEnd[i] ?? 0), box))
        }
        result.budgetHeldForegroundS = foreground / .seconds(1)
        result.budgetHeldBackgroundS = background / .seconds(1)
        result.boxesHeldByBudget = perBox.filter { $0.held > .zero }.count
        // Most relays first; ties by box order (stable), so the split is deterministic.
        let ranked = perBox.enumerated().sorted { ($0.element.relays, -$0.offset) > ($1.element.relays, -$1.offset) }.map(\.element)
        let fifth = max(1, ranked.count / 5)
        func meanSeconds(_ boxes: ArraySlice<(relays: Int, held: Duration)>) -> Double? {
            boxes.isEmpty ? nil : boxes.reduce(0.0) { $0 + $1.held / .seconds(1) } / Double(boxes.count)
        }
        result.budgetHeldTopRelayersS = meanSeconds(ranked.prefix(fifth))
        result.budgetHeldOtherBoxesS = meanSeconds(ranked.dropFirst(fifth))
    }

    /// What the boxes switched off lacked when they came back, and how soon they got it.
    func addReturnFigures(to result: inout SimResult) {
        guard !p.outages.isEmpty else { return }
        let warmUpUs = Engine.micros(p.warmUp)
        let windowUs = Engine.micros(p.repairWindow)
        var lacking = 0
        var caughtUp: [Int64] = []
        for outage in p.outages where nodes.indices.contains(outage.box) {
            let back = warmUpUs + Engine.micros(outage.until)
            for key in originNode.keys.sorted() where originTime[key]! < back {
                let origin = originNode[key]!
                guard origin != outage.box, topology.connected(from: origin, sensitivity: channel.sensitivityDbm).contains(outage.box) else { continue }
                let heldAt = nodes[outage.box].heldAt[key]
                if let heldAt, heldAt < back { continue }
                lacking += 1
                if let heldAt, heldAt <= back + windowUs { caughtUp.append(heldAt - back) }
            }
        }
        result.returnedLacking = lacking
        result.returnedCaughtUpWithinRepairWindow = lacking == 0 ? nil : Double(caughtUp.count) / Double(lacking)
        caughtUp.sort()
        result.returnedCatchUpP50Ms = caughtUp.isEmpty ? nil : Double(caughtUp[(caughtUp.count - 1) / 2]) / 1000
    }
}
