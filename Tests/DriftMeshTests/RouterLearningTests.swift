import DriftMesh
import Testing

/// A router that just started knows only the neighbours it heard since: until a full hello
/// period has passed its relay is a fallback, never pruned on coverage (review finding 8: a box
/// back from a short outage pruned the relay its other neighbour needed) and cancelled by a copy
/// from a box not heard with the packet yet, placed by the neighbours it knows when one of them
/// is uncovered.
@Suite struct RouterLearningTests {
    static let a = NodeID(0xA0A0_A0A1)
    static let b = NodeID(0xB0B0_B0B2)
    static let c = NodeID(0xC0C0_C0C3)
    static let key = [UInt8](repeating: 7, count: 32)
    static let good = LinkQuality(rssi: -100, snr: 5)
    static let header = MeshHeader(kind: .broadcast, origin: a, packetID: 9, hopStart: 3, expiresAtMinute: 100)

    /// B started at `start` (hello period 60 s ± 5 s) and has heard only A, which hears only B.
    static func router(startedAt start: Duration = .zero, learning: Duration? = nil, seed: UInt64 = 42,
                       configure: (inout MeshRouterConfiguration) -> Void = { _ in }) -> MeshRouter {
        var config = MeshRouterConfiguration(helloPeriod: .seconds(60), helloJitter: .seconds(5))
        config.neighbourLearningPeriod = learning
        configure(&config)
        var r = MeshRouter(me: b, configuration: config, seed: seed)
        _ = r.due(now: start)
        _ = r.heardHello(from: a, payload: HelloPayload(publicKey: key, neighbours: [.init(id: b, bucket: 3)]), link: good, now: start + .seconds(1))
        return r
    }

    static func run(_ r: inout MeshRouter, from start: Duration, for length: Duration) -> [RouterAction] {
        var out: [RouterAction] = []
        while let t = r.nextDeadline, t <= start + length { out += r.due(now: t).filter { $0 != .sendHello } }
        return out
    }

    @Test func theLearningPeriodIsOneHelloPeriodAndItsJitterUnlessSet() {
        #expect(Self.router().configuration.effectiveNeighbourLearningPeriod == .seconds(65))
        #expect(Self.router(learning: .seconds(10)).configuration.effectiveNeighbourLearningPeriod == .seconds(10))
        var fresh = MeshRouter(me: Self.b, configuration: .standard, seed: 1)
        #expect(fresh.isLearningNeighbours(now: .seconds(1_000)), "not started yet: nothing heard")
        _ = fresh.due(now: .seconds(1_000))
        #expect(fresh.isLearningNeighbours(now: .seconds(1_330) - .nanoseconds(1)))
        #expect(!fresh.isLearningNeighbours(now: .seconds(1_330)))
    }

    @Test func aRouterThatJustStartedRelaysWhatItsTableCallsCovered() {
        // At 64.999… s B still learns: A's copy "covers" every neighbour B knows, yet B relays
        // (for neighbours whose hellos it has not heard, such as C).
        var learning = Self.router()
        let at = Duration.seconds(65) - .nanoseconds(1)
        #expect(learning.heard(Self.header, link: Self.good, firstTime: true, now: at) == [.deliver(Self.header.key)])
        #expect(Self.run(&learning, from: at, for: .seconds(30)) == [.transmit(Self.header.relayed(by: Self.b))])
        #expect(learning.counters.relaysPruned == 0)
        // From 65 s on it prunes.
        var learnt = Self.router()
        _ = learnt.heard(Self.header, link: Self.good, firstTime: true, now: .seconds(65))
        #expect(Self.run(&learnt, from: .seconds(65), for: .seconds(30)).isEmpty)
        #expect(learnt.counters.relaysPruned == 1)
    }

    @Test func whileLearningAnyCopyCancelsTheRelayAsFloodingDoes() {
        var r = Self.router()
        _ = r.heard(Self.header, link: Self.good, firstTime: true, now: .seconds(10))
        #expect(r.heard(Self.header.relayed(by: Self.c), link: Self.good, firstTime: false, now: .seconds(10) + .milliseconds(1)) == [.cancelled(Self.header.key)])
        #expect(Self.run(&r, from: .seconds(10), for: .seconds(30)).isEmpty)
    }

    /// When B's relay of A's broadcast, heard at 10 s (B learning since 0 s), goes out: B heard A
    /// (which hears only B) and, with `hearsC`, C (which hears only B too).
    static func relayTime(hearsC: Bool, ranked: Bool, seed: UInt64) -> Duration? {
        var r = router(seed: seed) { $0.learningRelaysRanked = ranked }
        if hearsC {
            _ = r.heardHello(from: c, payload: HelloPayload(publicKey: key, neighbours: [.init(id: b, bucket: 3)]), link: good, now: .seconds(2))
        }
        #expect(r.isLearningNeighbours(now: .seconds(10)))
        _ = r.heard(header, link: good, firstTime: true, now: .seconds(10))
        while let t = r.nextDeadline, t <= .seconds(60) {
            if r.due(now: t).contains(.transmit(header.relayed(by: b))) { return t - .seconds(10) }
        }
        return nil
    }

    @Test("while learning, a box that knows an uncovered neighbour places its relay as a box past learning does (C uncovered: at once, the leader's jitter); with none known uncovered, and by the rule before, flooding's 96–288 slots")
    func aLearningRelayIsPlacedByTheNeighboursItKnows() {
        let slot = MeshRouterConfiguration.standard.slot  // 77 ms
        for seed in UInt64(1)...20 {
            // C uncovered: the leader's jitter, 32 slots at most (a good link's SNR scales it down).
            let leader = Self.relayTime(hearsC: true, ranked: true, seed: seed)
            #expect(leader.map { $0 <= slot * 32 } == true, "seed \(seed): \(String(describing: leader))")
            // Only A known, and A's copy covers it: still relayed (never pruned while learning),
            // for neighbours not heard yet, after flooding's delay; so by the rule before.
            for (hearsC, ranked) in [(false, true), (true, false), (false, false)] {
                let flooding = Self.relayTime(hearsC: hearsC, ranked: ranked, seed: seed)
                #expect(flooding.map { $0 >= slot * 96 && $0 <= slot * 288 } == true,
                        "seed \(seed), hears C \(hearsC), ranked \(ranked): \(String(describing: flooding))")
            }
        }
    }

    @Test("while learning, the origin's retry (a copy from a box heard already) leaves the relay queued; it cancelled it by the rule before")
    func theOriginsRetryLeavesTheFallbackQueued() {
        for kept in [true, false] {
            var r = Self.router { $0.fallbackKeptOnRepeatedCopies = kept }
            _ = r.heard(Self.header, link: Self.good, firstTime: true, now: .seconds(10))
            let retry = r.heard(Self.header, link: Self.good, firstTime: false, now: .seconds(18))
            #expect(retry == (kept ? [] : [.cancelled(Self.header.key)]), "kept \(kept)")
            #expect(Self.run(&r, from: .seconds(18), for: .seconds(30)) == (kept ? [.transmit(Self.header.relayed(by: Self.b))] : []), "kept \(kept)")
        }
    }

    @Test func theLearningPeriodCountsFromTheRoutersOwnStart() {
        // Started at 1 000 s (a box restarted on a clock that kept running, as the simulator's).
        var r = Self.router(startedAt: .seconds(1_000))
        _ = r.heard(Self.header, link: Self.good, firstTime: true, now: .seconds(1_030))
        #expect(Self.run(&r, from: .seconds(1_030), for: .seconds(30)) == [.transmit(Self.header.relayed(by: Self.b))])
    }

    /// When each of `count` routers started together at 1 000 s sends its first hello, with
    /// the first hello spread over up to `spread` (hello period 300 s ± 30 s).
    static func firstHellos(count: Int, spread: Duration) -> [Duration] {
        (0..<count).map { i in
            var config = MeshRouterConfiguration.standard
            config.firstHelloSpread = spread
            var r = MeshRouter(me: NodeID(0x1000_0000 + UInt32(i) &* 0x0101_0101), configuration: config, seed: 7)
            var now = Duration.seconds(1_000)
            while now <= .seconds(2_000) {
                if r.due(now: now).contains(.sendHello) { return now }
                guard let next = r.nextDeadline else { break }
                now = max(now, next)
            }
            return .seconds(-1)
        }
    }

    @Test("boxes that start together spread their first hellos (a power cut of the whole mesh); zero sends it at once; the learning period counts from the start")
    func firstHelloSpread() {
        let spread = Self.firstHellos(count: 20, spread: .seconds(30))
        #expect(spread.allSatisfy { $0 >= .seconds(1_000) && $0 <= .seconds(1_030) }, "\(spread)")
        #expect(Set(spread).count >= 18, "\(spread.sorted())")
        #expect(spread.contains { $0 > .seconds(1_015) } && spread.contains { $0 < .seconds(1_015) }, "\(spread.sorted())")
        #expect(Self.firstHellos(count: 5, spread: .zero) == Array(repeating: .seconds(1_000), count: 5))
        // Waiting for its first hello, the router has started: it learns from the start on.
        var config = MeshRouterConfiguration.standard
        config.firstHelloSpread = .seconds(30)
        var r = MeshRouter(me: Self.b, configuration: config, seed: 3)
        _ = r.due(now: .seconds(1_000))
        #expect(r.isLearningNeighbours(now: .seconds(1_330) - .nanoseconds(1)))
        #expect(!r.isLearningNeighbours(now: .seconds(1_330)))
    }
}
