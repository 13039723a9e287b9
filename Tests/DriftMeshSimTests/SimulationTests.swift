import DriftMesh
import DriftMeshSim
import Foundation
import Testing

/// The mean of `f` over runs.
private func mean(_ rs: [SimResult], _ f: (SimResult) -> Double) -> Double { rs.map(f).reduce(0, +) / Double(rs.count) }

/// Seeds 1…3 at 20 boxes, 10 messages: `router`, ours with or without the topology plan.
private func twentyBoxRuns(plan: Bool, router: SimRouterKind = .ours) async -> [SimResult] {
    await simulate((1...3).map { seed in
        var p = SimParameters(nodes: 20, seed: UInt64(seed), router: router, messages: 10)
        p.ourConfiguration.topologyPlan = plan
        return p
    })
}

/// Total over data airtime, as the ratio of the means (docs/mesh-simulation.md).
private func ratio(_ rs: [SimResult]) -> Double { mean(rs, \.totalAirtimeMs) / mean(rs, \.dataAirtimeMs) }

@Suite struct SimulationTests {
    static func json(_ r: SimResult) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(r), as: UTF8.self)
    }

    @Test(arguments: [SimRouterKind.ours, .meshtastic])
    func sameSeedSameResult(kind: SimRouterKind) async throws {
        let p = SimParameters(nodes: 15, seed: 11, router: kind, messages: 8)
        let runs = try await simulate([p, p, SimParameters(nodes: 15, seed: 12, router: kind, messages: 8)]).map(Self.json)
        #expect(runs[0] == runs[1])
        #expect(runs[0] != runs[2])
    }

    @Test("bursts pack each span's drawn messages into its first part: the same messages and origins in the same order, every one within a burst, none moved to another span")
    func burstsPackTheSameMessages() throws {
        var flat = SimParameters(nodes: 20, seed: 7301, router: .ours, messages: 80)
        flat.periodPerNode = .seconds(1_000)
        var bursty = flat
        bursty.bursts = SimBursts(every: .seconds(1_800), length: .seconds(120))
        let a = MeshSimulation(flat).drawnMessages(), b = MeshSimulation(bursty).drawnMessages()
        #expect(a.count == 80 && b.count == 80)
        #expect(a.map(\.origin) == b.map(\.origin))
        #expect(zip(b, b.dropFirst()).allSatisfy { $0.at <= $1.at }, "still in order")
        let span = Duration.seconds(1_800)
        func index(_ t: Duration) -> Int { Int((t / span).rounded(.down)) }
        func offset(_ t: Duration) -> Duration { t - span * index(t) }
        for (x, y) in zip(a, b) {
            #expect(index(x.at) == index(y.at), "\(x.at) moved to another span as \(y.at)")
            #expect(offset(y.at) < .seconds(120), "\(y.at) outside its burst")
            #expect(y.at <= x.at)
        }
        #expect(Set(b.map { index($0.at) }).count > 1, "more than one burst")
        #expect(a.contains { offset($0.at) >= .seconds(120) }, "the flat rate spreads them")
    }

    @Test func jsonHasTheRequiredKeys() async throws {
        let r = await simulate(SimParameters(nodes: 5, seed: 1, router: .ours, messages: 3))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.json(r).utf8)) as? [String: Any])
        for key in ["router", "nodes", "seed", "reachability", "usefulness", "transmissionsPerBroadcast", "airtimePerDeliveredMs", "collisions", "latencyP50Ms", "latencyP95Ms"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect((0...1).contains(r.reachability) && (0...1).contains(r.usefulness))
    }

    @Test func channelModelMatchesMeshtasticator() {
        let c = ChannelModel()
        // LongFast slot: 8.5 symbols of 8.192 ms + 7.6 ms.
        #expect(abs(c.slotMs - 77.232) < 0.001)
        // Range on mean links: about 2 km on the 3GPP suburban model at 30 dBm, 1 m antennas.
        #expect(c.meanRssi(distance: 1_900) > c.sensitivityDbm)
        #expect(c.meanRssi(distance: 2_200) < c.sensitivityDbm)
    }

    @Test("a channel tuned to a modulation: LongFast gives the defaults back (within 0.02 dB); SF9 at 125 kHz needs 2 dB more signal, its slot and frames are shorter")
    func channelTunedToAModulation() {
        var longFast = ChannelModel()
        longFast.use(.longFast, demodulationLimitDb: -17.5)
        #expect(abs(longFast.sensitivityDbm - ChannelModel().sensitivityDbm) < 0.025)  // −131.52 against −131.5
        #expect(abs(longFast.cadThresholdDbm - ChannelModel().cadThresholdDbm) < 0.025)
        #expect(abs(longFast.noiseLevelDbm - ChannelModel().noiseLevelDbm) < 1e-9)
        var e22 = ChannelModel()
        e22.use(LoRaModulation(spreadingFactor: 9, bandwidthHz: 125_000, codingRateOffset: 1, preambleSymbols: 8), demodulationLimitDb: -12.5)
        #expect(abs(e22.sensitivityDbm - -129.53) < 0.01)  // −174 + 50.97 + 6 − 12.5
        #expect(abs(e22.cadThresholdDbm - -132.53) < 0.01)
        #expect(abs(e22.noiseLevelDbm - (-119.25 - 3.01)) < 0.01)
        #expect(abs(e22.slotMs - (8.5 * 4.096 + 7.6)) < 0.001)
        // 56 bytes: 85.25 symbols of 4.096 ms against LongFast's 682 ms.
        #expect(abs(LoRaAirtime.seconds(payloadBytes: 56, modulation: e22.modulation) - 0.3492) < 0.0005)
        #expect(e22.txPowerDbm == ChannelModel().txPowerDbm, "the link budget stays as set")
    }

    @Test func managedFloodingContentionWindowFollowsTheFirmware() {
        let r = ManagedFloodingRouter(me: NodeID(1), slotMs: 77.232, packetAirtime: .milliseconds(600), seed: 1)
        #expect(r.contentionWindow(snr: -30) == 3)
        #expect(r.contentionWindow(snr: -20) == 3)
        #expect(r.contentionWindow(snr: 10) == 8)
        #expect(r.contentionWindow(snr: 25) == 8)
        #expect(r.contentionWindow(snr: -5) == 5)
    }
}

/// What our router achieves against the faithful managed flooding at 30 nodes, over fixed
/// seeds (deterministic, not timed). Review finding 2: most of our reach lead over the
/// hop-3 baseline comes from the hop limit — at equal hop limits (7) ours is not behind
/// (on these seeds 8 points ahead since the copy counter waits for a busy channel and repair
/// collides less with the flood), and
/// sends fewer frames. Repair under contention lifts connected reach within 5 minutes
/// well above the one-shot figure but not to 1 — docs/mesh-simulation.md.
@Suite struct OutcomeTests {
    @Test func oursAgainstTheFaithfulBaselineAtThirtyNodes() async {
        let seeds: [UInt64] = [1, 2, 3, 4]
        let ours = await simulate(seeds.map { SimParameters(nodes: 30, seed: $0, router: .ours) })
        let hop3 = await simulate(seeds.map { SimParameters(nodes: 30, seed: $0, router: .meshtastic) })
        let hop7 = await simulate(seeds.map { SimParameters(nodes: 30, seed: $0, router: .meshtastic, hopLimit: 7) })
        #expect(mean(ours, \.reachability) > mean(hop3, \.reachability) + 0.1)
        #expect(mean(ours, \.reachability) > mean(hop7, \.reachability))
        #expect(mean(ours, \.transmissionsPerBroadcast) < mean(hop7, \.transmissionsPerBroadcast))
        for r in ours {
            #expect(r.connectedReachWithinRepairWindow > r.connectedReachability + 0.05, "seed \(r.seed): repair must lift connected reach")
            #expect(r.connectedReachWithinRepairWindow > 0.9, "seed \(r.seed)")
            #expect(r.reachability <= r.reachabilityBound)
        }
    }

    /// Cheaper repair (issue 19): digests of 16-bit hashes instead of per-origin runs, and a
    /// packet got as a repair relayed on by the router. Seeds 1…4 at 30 boxes, means.
    @Test func compactDigestsAndRepairRelays() async {
        func runs(compact: Bool, relays: Bool) async -> [SimResult] {
            await simulate((1...4).map { seed in
                var p = SimParameters(nodes: 30, seed: UInt64(seed), router: .ours)
                p.repairCompactDigests = compact
                p.repairRelays = relays
                return p
            })
        }
        let now = await runs(compact: true, relays: true)
        let fullDigests = await runs(compact: false, relays: true)
        let noRelays = await runs(compact: true, relays: false)
        let before = await runs(compact: false, relays: false)
        // Digests cost about half the airtime (0.53× here)…
        #expect(mean(now) { $0.digestAirtimeMs ?? .infinity } < 0.6 * mean(fullDigests) { $0.digestAirtimeMs ?? 0 })
        // …relaying repairs reaches more connected boxes within 5 minutes for less airtime (0.999
        // against 0.987, 2.00× against 2.13× the data's; before a box that learnt it lacks
        // something sent its next digest unsuppressed, 0.985 against 0.961)…
        #expect(mean(now, \.connectedReachWithinRepairWindow) > mean(noRelays, \.connectedReachWithinRepairWindow) + 0.005)
        #expect(ratio(now) < ratio(noRelays))
        #expect(now.allSatisfy { ($0.repairsRelayed ?? 0) > 0 } && noRelays.allSatisfy { $0.repairsRelayed == 0 })
        // …and together they cost less than the repair before them (1.94× the data's airtime against
        // 2.25×, with answers bounded as the node bounds them; before that 2.01× against 2.46× with
        // the hold-off, without it 2.13× against 2.37×, and 1.87× before relays were ordered among
        // neighbours: on these four seeds that order sends 6 % fewer data frames and the flood
        // misses more, so repair sends 32 % more).
        #expect(ratio(now) < ratio(before) - 0.2)
        #expect(mean(now, \.connectedReachWithinRepairWindow) > mean(before, \.connectedReachWithinRepairWindow))
    }

    /// A box that learnt it lacks something sends its next digest however many consistent ones
    /// it hears first (on by default since issue 19's last session): with k = 1 the boxes of a
    /// patch that all missed a packet sound consistent to each other and stay quiet. Seeds 1…4
    /// at 30 boxes, default load: connected boxes within 5 minutes 0.985 → 0.999, total ÷ data
    /// airtime 1.92× → 2.00×, the flood itself the same.
    @Test func lackingBoxesDigestUnsuppressed() async {
        func runs(_ unsuppressed: Bool) async -> [SimResult] {
            await simulate((1...4).map { seed in
                var p = SimParameters(nodes: 30, seed: UInt64(seed), router: .ours)
                p.repairLackingUnsuppressed = unsuppressed
                p.implicitAckRetryJitter = 0  // as measured: before the implicit-ack retry was drawn (issue 19, 2026-12-08)
                return p
            })
        }
        #expect(SimParameters(nodes: 30, seed: 1, router: .ours).repairLackingUnsuppressed)
        let on = await runs(true), off = await runs(false)
        #expect(mean(on, \.connectedReachWithinRepairWindow) > mean(off, \.connectedReachWithinRepairWindow) + 0.01)
        #expect(mean(on) { Double($0.digestTransmissions ?? 0) } > mean(off) { Double($0.digestTransmissions ?? 0) })
        #expect(ratio(on) < ratio(off) + 0.15)
        #expect(mean(on, \.reachability) >= mean(off, \.reachability) - 0.005)
    }

    /// Repair holds off while a flood passes (issue 19): a box sends no digest and no repair
    /// within 30 s of its last packet from the flood, so repair frames no longer collide with
    /// the flood's relays. Seeds 1…6 at 30 boxes, default load: one-shot reach 0.693 → 0.759
    /// (higher on every seed), connected boxes within 5 minutes 0.994 → 0.991, total ÷ data
    /// airtime 1.96× → 1.92× (before repair answers were bounded as the node bounds them:
    /// 0.996 → 0.998 and 2.10× → 1.99×). Measured, and run here, with the relay jitter of
    /// that time (not weighted by SNR): the weighted jitter ends floods sooner, and on these
    /// seeds the hold-off then gains 1.5 points (on the held-out seeds 0.8 at 30 boxes and 3.8
    /// at 50, docs/mesh-simulation.md).
    @Test func repairHoldsOffWhileAFloodPasses() async {
        func runs(holdOff: Duration?) async -> [SimResult] {
            await simulate((1...6).map { seed in
                var p = SimParameters(nodes: 30, seed: UInt64(seed), router: .ours)
                p.ourConfiguration.snrJitterFloorShare = nil
                p.quietBackOff = false  // as measured: before the simulator modelled the daemon's quiet back-off
                p.lookSlots = 8  // and its looks and back-off of 1…8 slots (1…4 since issue 19's session of 2026-12-06)
                p.repairHoldOff = holdOff
                return p
            })
        }
        let held = await runs(holdOff: .seconds(30))
        let eager = await runs(holdOff: nil)
        #expect(SimParameters(nodes: 30, seed: 1, router: .ours).repairHoldOff == .seconds(30), "on by default")
        #expect(held.allSatisfy { ($0.repairsHeldOff ?? 0) > 0 } && eager.allSatisfy { $0.repairsHeldOff == 0 })
        #expect(mean(held, \.reachability) > mean(eager, \.reachability) + 0.03)
        #expect(mean(held, \.connectedReachWithinRepairWindow) >= mean(eager, \.connectedReachWithinRepairWindow) - 0.005)
        #expect(ratio(held) < ratio(eager))
    }

    /// The router-only repair answers digests as the daemon's node does (issue 19): not a box
    /// whose hello says it does not hear the answerer, and a packet to the same box at most
    /// twice. Before, a box that heard a neighbour that could not hear it answered its every
    /// digest. Seeds 1…4 at 30 boxes, default load: wasted repairs per run 28.8 → 12.8 (of 91.5
    /// → 76.0), total ÷ data airtime 2.01× → 1.94×, connected boxes within 5 minutes 1.000 →
    /// 0.998.
    @Test func repairAnswersFollowTheNode() async {
        func runs(bounded: Bool) async -> [SimResult] {
            await simulate((1...4).map { seed in
                var p = SimParameters(nodes: 30, seed: UInt64(seed), router: .ours)
                p.repairAnswersBounded = bounded
                return p
            })
        }
        let bounded = await runs(bounded: true)
        let unbounded = await runs(bounded: false)
        #expect(SimParameters(nodes: 30, seed: 1, router: .ours).repairAnswersBounded, "on by default")
        #expect(mean(bounded) { Double($0.repairsWasted ?? 0) } < 0.7 * mean(unbounded) { Double($0.repairsWasted ?? 0) })
        #expect(mean(bounded, \.connectedReachWithinRepairWindow) >= mean(unbounded, \.connectedReachWithinRepairWindow) - 0.005)
        #expect(ratio(bounded) < ratio(unbounded))
    }

    /// Latency at equal reach: over the deliveries both runs of a seed made, each one's median.
    /// By hand, then on a pair of runs: one recorded latency per useful reception, and the
    /// deliveries both made no more than either made.
    @Test func pairedLatencyComparesTheDeliveriesBothMade() async throws {
        let byHand = SimResult.pairedMedians([-1, 1_000, 2_000, 9_000, -1, 500, 700], [-1, 3_000, -1, 4_000, 100, -1, 50])
        #expect(byHand?.count == 3)
        #expect(byHand?.first == 1_000 && byHand?.second == 3_000)  // {1000, 9000, 700} and {3000, 4000, 50}
        #expect(SimResult.pairedMedians([1, 2], [3, 4])?.first == 2, "the upper median of an even count")
        #expect(SimResult.pairedMedians([-1], [5])?.count == 0)
        #expect(SimResult.pairedMedians([1], [1, 2]) == nil, "runs of different sizes are not paired")

        let runs = await simulate([SimRouterKind.ours, .meshtastic].map { kind in
            var p = SimParameters(nodes: 20, seed: 7301, router: kind, messages: 10, hopLimit: kind == .ours ? 7 : 3)
            p.recordReceptionLatencies = true
            return p
        })
        var ours = runs[0], baseline = runs[1]
        let x = try #require(ours.receptionLatenciesMs), y = try #require(baseline.receptionLatenciesMs)
        #expect(x.count == 10 * 20 && y.count == 10 * 20)
        #expect(x.filter { $0 >= 0 }.count == Int((ours.reachability * 10 * 19).rounded()), "one entry per useful reception")
        SimResult.pairLatencies(&ours, &baseline)
        let paired = ours.pairedDeliveries ?? 0
        #expect(paired > 0 && paired <= min(x.filter { $0 >= 0 }.count, y.filter { $0 >= 0 }.count))
        #expect(ours.pairedLatencyP50Ms != nil && baseline.pairedLatencyP50Ms != nil)
    }

    /// Boxes that do not sense the carrier (E22 boxes: the module reports none) start in the
    /// middle of their neighbours' frames: more collisions at Meshtasticator's load. The
    /// baseline's radios sense the channel (CAD) whatever the flag. Energy detection at a
    /// threshold no frame reaches is the same as none, at the CAD threshold the same as CAD.
    @Test func withoutCarrierSenseMoreFramesCollide() async {
        func runs(_ router: SimRouterKind, carrierSense: Bool) async -> [SimResult] {
            await simulate((1...3).map { seed in
                var p = SimParameters(nodes: 20, seed: UInt64(seed), router: router)
                p.reconcile = false
                p.carrierSense = carrierSense
                return p
            })
        }
        #expect(SimParameters(nodes: 20, seed: 1, router: .ours).carrierSense, "on by default")
        let sensing = await runs(.ours, carrierSense: true)
        let deaf = await runs(.ours, carrierSense: false)
        #expect(mean(deaf) { Double($0.collisions) } > 1.1 * mean(sensing) { Double($0.collisions) })
        // Energy detection: a threshold no frame reaches senses nothing, the CAD threshold what CAD does.
        let thresholds = await simulate([Double(100), ChannelModel().cadThresholdDbm].map { threshold in
            var p = SimParameters(nodes: 20, seed: 1, router: .ours)
            p.reconcile = false
            p.carrierSenseThresholdDbm = threshold
            return p
        })
        var sensingNothing = thresholds[0]
        #expect(sensingNothing.quietWaits == 0, "no frame end sensed, so no quiet back-off either")
        sensingNothing.quietWaits = nil
        #expect(sensingNothing == deaf[0] && thresholds[1] == sensing[0])
        let baseline = await runs(.meshtastic, carrierSense: true)
        let baselineFlagOff = await runs(.meshtastic, carrierSense: false)
        #expect(baseline.map(\.collisions) == baselineFlagOff.map(\.collisions))
        #expect(baseline.map(\.reachability) == baselineFlagOff.map(\.reachability))
    }

    /// The quiet back-off, as the daemon's listen before talk: our boxes hold a frame of their
    /// own that comes ready less than a slot after a frame they sensed ended for 1…8 slots
    /// (`quietWaits`); relays keep their slot unless `quietBackOffRelays`, so fewer frames wait
    /// than with it. Off, no frame waits and the run is the rule before's. The baseline's MAC is
    /// the firmware's: untouched by the flag.
    @Test func quietBackOffHoldsOwnFramesAsTheChannelTurnsQuiet() async {
        func run(_ router: SimRouterKind, _ configure: (inout SimParameters) -> Void = { _ in }) async -> SimResult {
            var p = SimParameters(nodes: 20, seed: 1, router: router)
            p.reconcile = false
            configure(&p)
            return await simulate(p)
        }
        #expect(SimParameters(nodes: 20, seed: 1, router: .ours).quietBackOff, "on by default")
        let own = await run(.ours), relaysToo = await run(.ours) { $0.quietBackOffRelays = true }
        let off = await run(.ours) { $0.quietBackOff = false }
        let waits = own.quietWaits ?? 0, allWaits = relaysToo.quietWaits ?? 0
        #expect(waits > 0 && allWaits > waits, "own frames \(waits), relays too \(allWaits)")
        #expect(off.quietWaits == nil && off != own)
        let deaf = await run(.ours) { $0.carrierSense = false }
        #expect(deaf.quietWaits == nil, "no carrier sense, no back-off")
        let baseline = await run(.meshtastic), baselineOff = await run(.meshtastic) { $0.quietBackOff = false }
        #expect(baseline.quietWaits == nil && baseline == baselineOff)
    }

    /// Our boxes on a busy channel look again 1…8 slots later (1…4 since, below), however long the
    /// frame lasts, as the daemon's listen before talk does (`MeshService`). Waiting for the frame's end and then
    /// 1…8 slots (`listenBeforeTalkWaitsForEnd`, the daemon's rule before) holds the floods back:
    /// higher median latency at 30 boxes under load (held-out seeds, eight draws: 7.1 → 7.6 s),
    /// and fewer frames draw the quiet back-off, since no look lands just after a frame ended.
    /// The baseline's MAC is the firmware's: untouched by the flag.
    @Test func listenBeforeTalkLooksAgainAsTheDaemonDoes() async {
        func runs(_ router: SimRouterKind, waitsForEnd: Bool) async -> [SimResult] {
            await simulate((1...6).map { seed in
                var p = SimParameters(nodes: 30, seed: UInt64(seed), router: router)
                p.listenBeforeTalkWaitsForEnd = waitsForEnd
                p.lookSlots = 8  // the two rules as compared, before the looks came down to 1…4 slots
                return p
            })
        }
        #expect(!SimParameters(nodes: 30, seed: 1, router: .ours).listenBeforeTalkWaitsForEnd, "looks again by default")
        let looks = await runs(.ours, waitsForEnd: false), waits = await runs(.ours, waitsForEnd: true)
        let latency = (mean(looks, \.latencyP50Ms), mean(waits, \.latencyP50Ms))
        #expect(latency.1 > latency.0, "median latency: looking again \(latency.0) ms, waiting for the end \(latency.1) ms")
        let quiet = (mean(looks, { Double($0.quietWaits ?? 0) }), mean(waits, { Double($0.quietWaits ?? 0) }))
        #expect(quiet.1 < 0.75 * quiet.0, "frames held as the channel turned quiet per run: \(quiet.0) against \(quiet.1)")
        let baseline = await runs(.meshtastic, waitsForEnd: false), baselineWaits = await runs(.meshtastic, waitsForEnd: true)
        #expect(baseline == baselineWaits)
    }

    /// Relay retries on a busy channel (off by default) buy reach with frames: seeds 1…6 at 30
    /// boxes, Meshtasticator's load, one-shot reach 0.759 → 0.830 (higher on every seed) for
    /// 10.8 → 15.2 data frames per broadcast; at low load 13.3 → 13.9 frames.
    @Test func busyRelayRetriesBuyReachWithFrames() async {
        func runs(period: Int, retries: Bool) async -> [SimResult] {
            await simulate((1...6).map { seed in
                var p = SimParameters(nodes: 30, seed: UInt64(seed), router: .ours)
                p.periodPerNode = .seconds(period)
                p.ourConfiguration.retryRelaysWhenBusy = retries
                p.implicitAckRetryJitter = 0  // as measured: before the implicit-ack retry was drawn (issue 19, 2026-12-08)
                p.quietBackOff = false  // as measured: before the simulator modelled the daemon's quiet back-off
                p.lookSlots = 8  // and its looks and back-off of 1…8 slots (1…4 since issue 19's session of 2026-12-06)
                return p
            })
        }
        let loaded = await runs(period: 100, retries: true), bare = await runs(period: 100, retries: false)
        #expect(zip(loaded, bare).allSatisfy { $0.reachability > $1.reachability })
        #expect(mean(loaded, \.reachability) > mean(bare, \.reachability) + 0.04)
        #expect(mean(loaded, { Double($0.retries) }) > mean(bare, { Double($0.retries) }) * 5)
        #expect(mean(loaded, \.transmissionsPerBroadcast) > 1.25 * mean(bare, \.transmissionsPerBroadcast))
        // A quiet channel: few relays go out while it is busy, so few retries.
        let quiet = await runs(period: 2000, retries: true), quietBare = await runs(period: 2000, retries: false)
        #expect(mean(quiet, \.transmissionsPerBroadcast) < mean(quietBare, \.transmissionsPerBroadcast) + 1)
        #expect(mean(quiet, \.reachability) >= mean(quietBare, \.reachability) - 0.005)
    }

    /// The simulator feeds the busy detector to every rule that reads it: relay retries on a busy
    /// channel with the copy counter always on (which reads no busy flag) still retry.
    @Test func busyRetriesAreFedWithTheCounterAlwaysOn() async {
        func run(retries: Bool) async -> SimResult {
            var p = SimParameters(nodes: 30, seed: 1, router: .ours)
            p.ourConfiguration.cancelAfterCopiesOnlyWhenBusy = false
            p.ourConfiguration.retryRelaysWhenBusy = retries
            #expect(p.ourConfiguration.readsChannelLoad == retries)
            return await simulate(p)
        }
        async let with = run(retries: true), without = run(retries: false)
        let (on, off) = await (with, without)
        #expect(on.retries > off.retries + 20, "\(on.retries) against \(off.retries)")
    }

    /// Relays planned on the topology (off by default): every box floods its neighbour list,
    /// and the flood's relays follow the plan every box computes from them. Seeds 1…12 at 30
    /// boxes, Meshtasticator's load: one-shot reach 0.757 → 0.789 for 10.28 → 9.57 data frames
    /// per broadcast (0.820 for 10.36 before boxes outside the plan left hidden planned relays
    /// their copies and the plan went hop by hop; docs/mesh-simulation.md, "Relays planned on
    /// the topology"); the adverts'
    /// frames after the warm-up count in the total airtime. Every run's `missedReach` adds up
    /// to the gap between the reachable boxes and the reach.
    @Test func topologyPlanReachesMoreForTheSameFrames() async {
        func runs(plan: Bool) async -> [SimResult] {
            await simulate((1...12).map { seed in
                var p = SimParameters(nodes: 30, seed: UInt64(seed), router: .ours)
                p.ourConfiguration.topologyPlan = plan
                return p
            })
        }
        async let plannedRuns = runs(plan: true), bareRuns = runs(plan: false)
        let (planned, bare) = await (plannedRuns, bareRuns)
        #expect(mean(planned, \.reachability) > mean(bare, \.reachability) + 0.02)
        #expect(mean(planned, \.transmissionsPerBroadcast) < 1.03 * mean(bare, \.transmissionsPerBroadcast))
        for r in planned {
            let adverts = r.topologyAdverts ?? 0, frames = r.topologyFramesAll ?? 0
            #expect(adverts >= 30, "every box advertises at least once in the warm-up")
            #expect(frames > 3 * adverts, "adverts are flooded")
            #expect((r.plannedRelays ?? 0) > 0)
            #expect(abs(r.totalAirtimeMs - (r.dataAirtimeMs + r.helloAirtimeMs + r.syncAirtimeMs + (r.topologyAirtimeMs ?? 0))) < 1)
        }
        #expect(bare.allSatisfy { $0.topologyAdverts == nil })
        for r in planned + bare {
            let missed = r.missedReach?.total ?? -1
            #expect(abs(missed - (r.reachabilityBound - r.reachability)) < 1e-9, "the misses add up to the gap to the bound")
        }
    }

    /// The warm-up's advert pace ends 240 s before the first message, so its last floods have
    /// died down when the messages start (`topologyQuietBeforeMessages`). Before, they ran into
    /// the first messages: at 50 boxes, held-out seeds, 5.5 first copies per message lost to
    /// them and other control frames against 1.5, and one-shot reach 0.765 against 0.821.
    /// Here: seeds 1…4 at 30 boxes, fewer advert frames after the warm-up, fewer first copies
    /// lost to control frames, and the boxes still know most of the mesh.
    @Test func warmUpAdvertsDieDownBeforeTheMessages() async {
        func runs(quiet: Duration) async -> [SimResult] {
            await simulate((1...4).map { seed in
                var p = SimParameters(nodes: 30, seed: UInt64(seed), router: .ours)
                p.ourConfiguration.topologyPlan = true
                p.quietBackOff = false  // as measured: before the simulator modelled the daemon's quiet back-off
                p.lookSlots = 8  // and its looks and back-off of 1…8 slots (1…4 since issue 19's session of 2026-12-06)
                p.topologyQuietBeforeMessages = quiet
                return p
            })
        }
        #expect(SimParameters(nodes: 30, seed: 1, router: .ours).topologyQuietBeforeMessages == .seconds(240))
        async let quietRuns = runs(quiet: .seconds(240)), loudRuns = runs(quiet: .zero)
        let (quiet, loud) = await (quietRuns, loudRuns)
        #expect(mean(quiet) { Double($0.topologyTransmissions ?? 0) } < mean(loud) { Double($0.topologyTransmissions ?? 0) })
        #expect(mean(quiet) { $0.usefulLosses?.controlFrames ?? 0 } < mean(loud) { $0.usefulLosses?.controlFrames ?? 0 })
        #expect(mean(quiet) { $0.topologyKnownShare ?? 0 } > 0.8)
    }

    /// `collisions` counts the whole run, the warm-up's hellos and adverts included;
    /// `collisionsMeasured` only the span the airtime figures count. With the plan most of the
    /// first are the warm-up's advert floods: per run at 30 and 50 boxes the plan collided about
    /// twice as often as the default router, and in the measured span less often
    /// (docs/mesh-simulation.md, "The daemon's node with the plan"). Here: seeds 1…3 at 20 boxes,
    /// 10 messages.
    @Test func collisionsOfTheMeasuredSpan() async throws {
        async let planRuns = twentyBoxRuns(plan: true), floodRuns = twentyBoxRuns(plan: false)
        async let baselineRuns = twentyBoxRuns(plan: false, router: .meshtastic)
        let (plan, flood, baseline) = await (planRuns, floodRuns, baselineRuns)
        for r in plan + flood {
            let measured = try #require(r.collisionsMeasured)
            #expect(measured > 0 && measured < r.collisions, "the messages collide, and the warm-up's hellos too")
        }
        #expect(mean(plan) { Double($0.collisions) } > mean(flood) { Double($0.collisions) })
        // 124 against 51 per run: the warm-up's advert floods.
        #expect(mean(plan) { Double($0.collisions - $0.collisionsMeasured!) } > 1.5 * mean(flood) { Double($0.collisions - $0.collisionsMeasured!) })
        for r in baseline { #expect(r.collisionsMeasured == r.collisions, "no warm-up: every collision is measured") }
        var ideal = SimParameters(nodes: 20, seed: 1, router: .ours, messages: 4)
        ideal.collisionFree = true
        #expect(await simulate(ideal).collisionsMeasured == nil)
    }

    /// `relaysByReason` splits our router's relays of the flood by why they went, with the first
    /// copies each kind brought and the frames that brought none. With the plan at 50 boxes a
    /// third of the fill-ins reached no box that lacked the packet (docs/mesh-simulation.md,
    /// "Where the plan's frames go"). Here: seeds 1…3 at 20 boxes, 10 messages.
    @Test func relaysByReason() async throws {
        async let planRuns = twentyBoxRuns(plan: true), floodRuns = twentyBoxRuns(plan: false)
        async let baselineRuns = twentyBoxRuns(plan: false, router: .meshtastic)
        let (plan, flood, baseline) = await (planRuns, floodRuns, baselineRuns)
        for r in plan + flood {
            let by = try #require(r.relaysByReason)
            #expect(Set(by.keys) == Set(MeshRouter.RelayReason.allCases.map(\.rawValue)))
            let frames = by.values.reduce(0) { $0 + $1.frames }
            // The origin's frame and its retries are not relays.
            #expect(frames > 0 && frames <= r.transmissionsPerBroadcast - 1 + 1e-9, "\(by) against \(r.transmissionsPerBroadcast)")
            let copies = by.values.reduce(0) { $0 + $1.firstCopies }
            #expect(copies > 0 && copies < r.reachability * Double(r.nodes - 1), "the origin's own frame brings some")
            for f in by.values { #expect(f.reachedNobody + f.allLost <= f.frames) }
        }
        for r in flood {
            #expect(r.relaysByReason?["planned"]?.frames == 0 && r.relaysByReason?["fillIn"]?.frames == 0)
        }
        #expect(mean(plan) { $0.relaysByReason?["planned"]?.frames ?? 0 } > mean(plan) { $0.relaysByReason?["coverage"]?.frames ?? 0 })
        #expect(mean(plan) { $0.relaysByReason?["fillIn"]?.frames ?? 0 } > 0)
        for r in baseline { #expect(r.relaysByReason == nil) }
    }

    /// `dynamicsSeed` keeps a seed's topology and messages and redraws the rest (channel access,
    /// relay jitter, the routers' own draws): how much of a per-seed difference between two
    /// settings is chance. Re-run that way, the default router's reach on seeds 1…30 at 30 boxes
    /// moved by −12.6…+9.1 points per seed (docs/mesh-simulation.md).
    @Test func dynamicsSeedRedrawsTheRunNotTheMesh() async {
        func parameters(_ dynamics: UInt64) -> SimParameters {
            var p = SimParameters(nodes: 20, seed: 5, router: .ours, messages: 10)
            p.dynamicsSeed = dynamics
            return p
        }
        #expect(MeshSimulation(parameters(0)).exportTopology() == MeshSimulation(parameters(7)).exportTopology(),
                "the same boxes, links and message origins")
        let results = await simulate([parameters(0), parameters(0), parameters(7)])
        #expect(results[0] == results[1], "the same draws, the same run")
        #expect(results[0].latencyP50Ms != results[2].latencyP50Ms || results[0].collisions != results[2].collisions,
                "other draws, another run")
    }

    /// Relay jitter weighted by the first copy's SNR (on by default) lets the far boxes relay
    /// first: seeds 1…6 at 30 boxes, low load, the flood alone, median latency 5.3 → 3.9 s
    /// (lower on every seed), one-shot reach 0.953 → 0.954, data frames 13.5 → 13.6 per
    /// broadcast. Without repair: its frames collide with the flood's, which moved reach on
    /// these six seeds by ±0.4 points as the repair's rules changed (0.945 → 0.942 measured
    /// with the repair of the day, 0.949 → 0.938 once a box lacking something digests
    /// unsuppressed), more than the weighting itself; on 30 held-out seeds the repair rule moves
    /// low-load reach by +0.0…+0.1 points (docs/mesh-simulation.md).
    @Test func snrWeightedJitterCutsLatency() async {
        func runs(floor: Double?) async -> [SimResult] {
            await simulate((1...6).map { seed in
                var p = SimParameters(nodes: 30, seed: UInt64(seed), router: .ours)
                p.periodPerNode = .seconds(2000)
                p.reconcile = false
                p.ourConfiguration.snrJitterFloorShare = floor
                return p
            })
        }
        let weighted = await runs(floor: MeshRouterConfiguration.standard.snrJitterFloorShare), flat = await runs(floor: nil)
        #expect(zip(weighted, flat).allSatisfy { $0.latencyP50Ms < $1.latencyP50Ms })
        #expect(mean(weighted, \.latencyP50Ms) < mean(flat, \.latencyP50Ms) - 1000)
        #expect(mean(weighted, \.reachability) >= mean(flat, \.reachability) - 0.01)
        #expect(mean(weighted, \.transmissionsPerBroadcast) < mean(flat, \.transmissionsPerBroadcast) + 1)
    }

    /// The ideal-channel diagnostic decodes every frame above the sensitivity: nothing is lost
    /// to overlap or half duplex, so the same runs reach more (seeds 1…3, 30 boxes, default load).
    @Test func aCollisionFreeChannelLosesNothingToOverlap() async {
        func runs(ideal: Bool, router: SimRouterKind) async -> [SimResult] {
            await simulate((1...3).map { seed in
                var p = SimParameters(nodes: 30, seed: UInt64(seed), router: router, hopLimit: router == .meshtastic ? 7 : nil)
                p.collisionFree = ideal
                return p
            })
        }
        for router in [SimRouterKind.ours, .meshtastic] {
            let ideal = await runs(ideal: true, router: router), real = await runs(ideal: false, router: router)
            #expect(ideal.allSatisfy { $0.collisions == 0 } && real.allSatisfy { $0.collisions > 0 })
            #expect(mean(ideal, \.reachability) > mean(real, \.reachability) + 0.05, "\(router)")
            #expect(ideal.allSatisfy { $0.reachability <= $0.reachabilityBound })
            // Where first copies went: nowhere on the ideal channel; on the real one every loss
            // to overlap is one of the run's collisions.
            #expect(ideal.allSatisfy { $0.usefulLosses == nil })
            for r in real {
                let losses = r.usefulLosses
                #expect(losses != nil && losses!.total > 0, "\(router)")
                if let losses { #expect((losses.total - losses.halfDuplex) * Double(r.messages) <= Double(r.collisions) + 1e-6) }
            }
        }
    }

    /// A — B — C in a line, A and C out of each other's range, a message every 3 s from some
    /// box: A's and C's frames meet at B unheard by each other (hidden). Three boxes side by
    /// side hear each other, so none of their losses is hidden.
    @Test func firstCopiesLostByCause() async throws {
        func run(_ positions: [(x: Double, y: Double)]) async throws -> UsefulLosses {
            var p = SimParameters(nodes: 3, seed: 11, router: .ours, messages: 150)
            p.positions = positions
            p.channel.linkOffsetSigmaDb = 0
            p.periodPerNode = .seconds(3)
            return try #require(await simulate(p).usefulLosses)
        }
        let line = try await run([(0, 0), (1_000, 0), (2_600, 0)])
        #expect(line.hiddenOtherPacket > 0)
        let cluster = try await run([(0, 0), (60, 0), (0, 60)])
        #expect(cluster.hiddenSamePacket + cluster.hiddenOtherPacket == 0)
        #expect(cluster.total > 0)
    }

    @Test func multipointRelaysOnALineAndAStar() {
        // 0 — 1 — 2 — 3, links both ways: 0 designates 1 (its only way to 2), 1 designates 2,
        // 2 designates 1 (its way back to 0), already sent: 0, 1, 2 transmit; 3 is reached.
        let line = MultipointRelayPlan(origin: 0, count: 4) { s, r in abs(s - r) == 1 }
        #expect(line.transmissions == 3)
        #expect(line.reached == 3)
        // A hub with four leaves behind the origin: the hub relays, no leaf does.
        let star = MultipointRelayPlan(origin: 0, count: 6) { s, r in (s == 0 && r == 1) || (s == 1 && r == 0) || (s == 1 && r > 1) || (r == 1 && s > 1) }
        #expect(star.transmissions == 2)
        #expect(star.reached == 5)
        // Only links usable both ways make neighbours: 2 hears 1 one way only, so 0 designates
        // nobody and 2 is never reached.
        let oneWay = MultipointRelayPlan(origin: 0, count: 3) { s, r in (s == 0 && r == 1) || (s == 1 && r == 0) || (s == 1 && r == 2) }
        #expect(oneWay.transmissions == 1)
        #expect(oneWay.reached == 1)
    }

    @Test func multipointRelaySelectionTakesSoleProvidersFirst() {
        // 0's neighbours 1, 2, 3; 2-hop: 4 (only via 1), 5 and 6 (via 2 or 3), 7 (via 3).
        let links: [Int: [Int]] = [0: [1, 2, 3], 1: [0, 4], 2: [0, 5, 6], 3: [0, 5, 6, 7], 4: [1], 5: [2, 3], 6: [2, 3], 7: [3]]
        let neighbours = (0...7).map { links[$0] ?? [] }
        // 1 and 3 are the only ways to 4 and 7; 3 also reaches 5 and 6: 2 is not needed.
        #expect(MultipointRelayPlan.relays(of: 0, neighbours: neighbours) == [1, 3])
    }

    @Test func greedyPlanOnALine() {
        // 0 — 1 — 2 — 3, each hearing only its neighbours: 0, 1 and 2 transmit; 1, 2, 3 are
        // reached; receptions 1 + 2 + 2 = 5.
        let plan = BroadcastPlan(origin: 0, count: 4) { s, r in abs(s - r) == 1 }
        #expect(plan.transmissions == 3)
        #expect(plan.reached == 3)
        #expect(plan.receptions == 5)
        #expect(abs(plan.usefulness - 0.6) < 1e-9)
    }

    @Test func greedyPlanPicksTheBestCoveringRelay() {
        // A star: the origin 0 hears only hub 1, which reaches 2…5; leaf 2 also hears 3.
        let links: Set<[Int]> = [[0, 1], [1, 0], [1, 2], [1, 3], [1, 4], [1, 5], [2, 1], [3, 1], [4, 1], [5, 1], [2, 3], [3, 2]]
        let plan = BroadcastPlan(origin: 0, count: 6) { s, r in links.contains([s, r]) }
        #expect(plan.transmissions == 2)
        #expect(plan.reached == 5)
        #expect(plan.receptions == 1 + 5)
        // One-way links count: a box only the origin can hear is still reached.
        let oneWay = BroadcastPlan(origin: 0, count: 2) { s, r in s == 0 && r == 1 }
        #expect(oneWay.transmissions == 1 && oneWay.reached == 1)
    }
}

/// Finding 6: the simulator used ids whose low bytes never collide; real random ids do.
@Suite struct NodeIDTests {
    @Test func randomIDsShareLowBytesInSomeNeighbourhoods() async {
        var random = 0.0, sequential = 0.0
        for seed in UInt64(7301)...7310 {
            var p = SimParameters(nodes: 30, seed: seed, router: .meshtastic, messages: 1)
            random += await simulate(p).shortIDCollisionShare / 10
            p.randomNodeIDs = false
            sequential += await simulate(p).shortIDCollisionShare / 10
        }
        #expect(sequential == 0)
        #expect(random > 0.05, "share of boxes with a short-id clash nearby: \(random)")
    }
}
