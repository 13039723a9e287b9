import DriftMesh
import Testing

/// MeshRouter driven with a manual clock (explicit `now`).
@Suite struct RouterTests {
    static let a = NodeID(0xA0A0_A0A1)
    static let b = NodeID(0xB0B0_B0B2)
    static let c = NodeID(0xC0C0_C0C3)
    static let d = NodeID(0xD0D0_D0D4)
    static let e = NodeID(0xE0E0_E0E5)
    static let key = [UInt8](repeating: 7, count: 32)
    static let good = LinkQuality(rssi: -100, snr: 5)

    static var config: MeshRouterConfiguration {
        var c = MeshRouterConfiguration(helloPeriod: .seconds(60), helloJitter: .zero)
        c.neighbourLearningPeriod = .zero  // these routers are handed their whole table at once
        c.implicitAckTimeout = .seconds(5)
        c.implicitAckRetryJitter = 0  // the exact timeout (the draw: `implicitAckRetriesDrawnApart`)
        c.slotsPerRank = 3
        c.jitterSlots = 4
        c.powerControl = false  // full power; `relayPowerFollowsTheWeakestUncoveredNeighbour` tests it
        return c
    }

    /// A router for `me` that has heard hellos: `table[n]` = n's neighbour list.
    static func router(_ me: NodeID, hears table: [NodeID: [NodeID]], at now: Duration = .zero) -> MeshRouter {
        var r = MeshRouter(me: me, configuration: config, seed: 42)
        _ = r.due(now: now)  // first hello
        for (n, list) in table.sorted(by: { $0.key < $1.key }) {
            let payload = HelloPayload(publicKey: key, neighbours: list.map { .init(id: $0, bucket: 3) })
            _ = r.heardHello(from: n, payload: payload, link: good, now: now)
        }
        return r
    }

    static func header(_ kind: FrameKind = .broadcast, from origin: NodeID = a, to destination: NodeID? = nil, hops: UInt8 = 0, hopStart: UInt8 = 3) -> MeshHeader {
        var h = MeshHeader(kind: kind, origin: origin, packetID: 9, destination: destination, hopStart: hopStart, expiresAtMinute: 100)
        for _ in 0..<hops { h = h.relayed(by: origin) }
        h.hopsTaken = hops
        return h
    }

    /// Runs `due` at the router's deadlines until `limit`, collecting actions other than hellos.
    static func run(_ r: inout MeshRouter, until limit: Duration) -> [RouterAction] {
        var out: [RouterAction] = []
        while let t = r.nextDeadline, t <= limit {
            out += r.due(now: t).filter { $0 != .sendHello }
        }
        return out
    }

    @Test func firstDueSendsHelloAndPayloadListsNeighbours() {
        var r = MeshRouter(me: Self.b, configuration: Self.config, seed: 1)
        #expect(r.nextDeadline == .zero)
        #expect(r.due(now: .zero) == [.sendHello])
        #expect(r.nextDeadline == .seconds(60))
        _ = r.heardHello(from: Self.a, payload: HelloPayload(publicKey: Self.key, neighbours: []), link: Self.good, now: .seconds(1))
        let payload = r.helloPayload(publicKey: Self.key, now: .seconds(2))
        #expect(payload.neighbours == [.init(id: Self.a, bucket: 3)])
        #expect(r.neighbours.map(\.id) == [Self.a])
    }

    @Test func relayIsScheduledNotImmediate() {
        // B hears A and C; A does not hear C, so B must relay A's packet for C.
        var r = Self.router(Self.b, hears: [Self.a: [Self.b], Self.c: [Self.b]])
        let h = Self.header()
        let now = Duration.seconds(10)
        #expect(r.heard(h, link: Self.good, firstTime: true, now: now) == [.deliver(h.key)])
        let deadline = try! #require(r.nextDeadline)
        #expect(deadline > now && deadline < now + .seconds(5))
        let actions = Self.run(&r, until: now + .seconds(5))
        #expect(actions == [.transmit(h.relayed(by: Self.b))])
        #expect(r.counters.relaysSent == 1)
    }

    @Test func relayPowerFollowsTheWeakestUncoveredNeighbour() {
        // B relays A's packet for C and D. Defaults: decode at −17.5 dB SNR, 8 dB headroom, +22…−9 dBm.
        var config = Self.config
        config.powerControl = true
        func relay(cSNR: Double, dSNR: Double) -> [RouterAction] {
            var r = MeshRouter(me: Self.b, configuration: config, seed: 42)
            _ = r.due(now: .zero)
            for (n, list, snr) in [(Self.a, [Self.b], 5.0), (Self.c, [Self.b], cSNR), (Self.d, [Self.b], dSNR)] {
                let payload = HelloPayload(publicKey: Self.key, neighbours: list.map { .init(id: $0, bucket: 3) })
                _ = r.heardHello(from: n, payload: payload, link: LinkQuality(rssi: -100, snr: snr), now: .zero)
            }
            _ = r.heard(Self.header(), link: Self.good, firstTime: true, now: .seconds(10))
            return Self.run(&r, until: .seconds(30))
        }
        let h = Self.header().relayed(by: Self.b)
        // Weakest uncovered neighbour at 0 dB: 17.5 − 8 = 9.5 → 9 dB below +22.
        #expect(relay(cSNR: 0, dSNR: 6) == [.transmit(h, powerDbm: 13)])
        // Very strong links: clamped at −9 dBm.
        #expect(relay(cSNR: 30, dSNR: 40) == [.transmit(h, powerDbm: -9)])
        // A marginal neighbour needs full power.
        #expect(relay(cSNR: -12, dSNR: 6) == [.transmit(h, powerDbm: nil)])
    }

    @Test func plannedRelayIsCancelledWhenOverheardRelayCoversTheRest() {
        // D (a neighbour of B) also hears C: once D's relay is heard, C is covered.
        var r = Self.router(Self.b, hears: [Self.a: [Self.b, Self.d], Self.c: [Self.b, Self.d], Self.d: [Self.a, Self.b, Self.c]])
        let h = Self.header()
        _ = r.heard(h, link: Self.good, firstTime: true, now: .seconds(10))
        #expect(r.heard(h.relayed(by: Self.d), link: Self.good, firstTime: false, now: .seconds(10) + .milliseconds(1)) == [.cancelled(h.key)])
        #expect(Self.run(&r, until: .seconds(30)).isEmpty)
        #expect(r.counters.relaysCancelled == 1)
    }

    @Test func twoCopiesWithOneNeighbourLeftCancelToo() {
        // After A's copy B still misses C and D; D's relay covers D but not C. The counter
        // applies on a busy channel (the default since issue 19).
        var r = Self.router(Self.b, hears: [Self.a: [Self.b], Self.c: [Self.b], Self.d: [Self.a, Self.b]])
        r.channelBusy = true
        let h = Self.header()
        _ = r.heard(h, link: Self.good, firstTime: true, now: .seconds(10))
        #expect(r.heard(h.relayed(by: Self.d), link: Self.good, firstTime: false, now: .seconds(10) + .milliseconds(1)) == [.cancelled(h.key)])
        // Coverage only (counter off): C is still uncovered, so B relays.
        var config = Self.config
        config.cancelAfterCopies = 0
        var s = MeshRouter(me: Self.b, configuration: config, seed: 42)
        _ = s.due(now: .zero)
        for (n, list) in [(Self.a, [Self.b]), (Self.c, [Self.b]), (Self.d, [Self.a, Self.b])] {
            _ = s.heardHello(from: n, payload: HelloPayload(publicKey: Self.key, neighbours: list.map { .init(id: $0, bucket: 3) }), link: Self.good, now: .zero)
        }
        _ = s.heard(h, link: Self.good, firstTime: true, now: .seconds(10))
        #expect(s.heard(h.relayed(by: Self.d), link: Self.good, firstTime: false, now: .seconds(10) + .milliseconds(1)).isEmpty)
        #expect(Self.run(&s, until: .seconds(30)) == [.transmit(h.relayed(by: Self.b))])
    }

    @Test func noRelayWhenTheSenderAlreadyCoversEveryNeighbour() {
        var r = Self.router(Self.b, hears: [Self.a: [Self.b, Self.c], Self.c: [Self.a, Self.b]])
        let h = Self.header()
        #expect(r.heard(h, link: Self.good, firstTime: true, now: .seconds(10)) == [.deliver(h.key)])
        #expect(Self.run(&r, until: .seconds(30)).isEmpty)
        #expect(r.counters.relaysPruned == 1)
    }

    @Test func hopLimitReachedNeverRelays() {
        var r = Self.router(Self.b, hears: [Self.a: [Self.b], Self.c: [Self.b]])
        let h = Self.header(hops: 3, hopStart: 3)
        #expect(h.hopsLeft == 0)
        #expect(r.heard(h, link: Self.good, firstTime: true, now: .seconds(10)) == [.deliver(h.key)])
        #expect(Self.run(&r, until: .seconds(30)).isEmpty)
    }

    @Test func destinationDeliversAndStopsRelaying() {
        var r = Self.router(Self.b, hears: [Self.a: [Self.b], Self.c: [Self.b]])
        let h = Self.header(.directed, to: Self.b)
        #expect(r.heard(h, link: Self.good, firstTime: true, now: .seconds(10)) == [.deliver(h.key)])
        #expect(Self.run(&r, until: .seconds(30)).isEmpty)
    }

    @Test func directedFrameForOthersIsRelayedNotDelivered() {
        var r = Self.router(Self.b, hears: [Self.a: [Self.b], Self.c: [Self.b]])
        let h = Self.header(.directed, to: Self.c)
        #expect(r.heard(h, link: Self.good, firstTime: true, now: .seconds(10)).isEmpty)
        #expect(Self.run(&r, until: .seconds(30)) == [.transmit(h.relayed(by: Self.b))])
    }

    @Test func ackIsRelayedBackTowardsItsDestination() {
        // C acknowledges A's directed frame; B sits between them.
        var r = Self.router(Self.b, hears: [Self.a: [Self.b], Self.c: [Self.b]])
        let ack = Self.header(.ack, from: Self.c, to: Self.a)
        #expect(r.heard(ack, link: Self.good, firstTime: true, now: .seconds(10)).isEmpty)
        #expect(Self.run(&r, until: .seconds(30)) == [.transmit(ack.relayed(by: Self.b))])
    }

    @Test func directedFrameWhoseDestinationIsCoveredIsNotRelayed() {
        var r = Self.router(Self.b, hears: [Self.a: [Self.b, Self.c], Self.c: [Self.a, Self.b], Self.d: [Self.b]])
        let h = Self.header(.directed, to: Self.c)
        _ = r.heard(h, link: Self.good, firstTime: true, now: .seconds(10))
        #expect(Self.run(&r, until: .seconds(30)).isEmpty)
    }

    @Test func neighboursExpireAfterThreeMissedHellos() {
        var r = Self.router(Self.b, hears: [Self.a: [Self.b]], at: .zero)
        _ = r.due(now: .seconds(179))
        #expect(r.neighbours.map(\.id) == [Self.a])
        _ = r.due(now: .seconds(181))
        #expect(r.neighbours.isEmpty)
    }

    @Test func implicitAckRetryOnceWhenNoNeighbourRelays() {
        // B originates; its neighbour C hears E, whom B does not hear: C should relay.
        var r = Self.router(Self.b, hears: [Self.c: [Self.b, Self.e]])
        let h = Self.header(from: Self.b)
        #expect(r.originate(h, now: .seconds(10)) == [.transmit(h)])
        #expect(Self.run(&r, until: .seconds(14)).isEmpty)
        #expect(Self.run(&r, until: .seconds(16)) == [.transmit(h)])
        #expect(Self.run(&r, until: .seconds(59)).isEmpty)
        #expect(r.counters.implicitAckRetries == 1)
    }

    @Test("the implicit-ack retry waits its timeout plus up to half of it, drawn for each packet: two origins whose broadcasts went together retry apart; the relay delays drawn meanwhile stay as they were")
    func implicitAckRetriesDrawnApart() {
        /// Origin `me` (seed `seed`) hears C list it and E; broadcasts at 10 s, then hears A's
        /// broadcast at 11 s and plans its relay. Returns when its retry and that relay went.
        func run(_ me: NodeID, seed: UInt64, share: Double) -> (retry: Duration?, relay: Duration?) {
            var config = Self.config
            config.implicitAckRetryJitter = share
            var r = MeshRouter(me: me, configuration: config, seed: seed)
            _ = r.due(now: .zero)
            _ = r.heardHello(from: Self.c, payload: HelloPayload(publicKey: Self.key, neighbours: [.init(id: me, bucket: 3), .init(id: Self.e, bucket: 3)]),
                             link: Self.good, now: .zero)
            let own = Self.header(from: me)
            _ = r.originate(own, now: .seconds(10))
            var other = Self.header(from: Self.d)
            other.packetID = 10
            _ = r.heard(other, link: Self.good, firstTime: true, now: .seconds(11))
            var retry: Duration?, relay: Duration?
            while let t = r.nextDeadline, t <= .seconds(30) {
                for action in r.due(now: t) {
                    if action == .transmit(own) { retry = t }
                    if case .transmit(let h, _) = action, h.origin == Self.d { relay = t }
                }
            }
            return (retry, relay)
        }
        var retries: [Duration] = []
        for (origin, seed) in [(Self.b, UInt64(1)), (Self.a, UInt64(1)), (Self.b, UInt64(3))] {
            let drawn = run(origin, seed: seed, share: 0.5), exact = run(origin, seed: seed, share: 0)
            #expect(exact.retry == .seconds(15), "the exact timeout: 5 s")
            let retry = drawn.retry ?? .zero
            #expect(retry >= .seconds(15) && retry <= .seconds(17.5), "\(retry)")
            retries.append(retry)
            #expect(drawn.relay != nil && drawn.relay == exact.relay, "the relay's delay is drawn from the router's own stream")
        }
        #expect(Set(retries).count == retries.count, "drawn apart: \(retries)")
    }

    @Test func overheardRelayIsTheImplicitAck() {
        var r = Self.router(Self.b, hears: [Self.c: [Self.b, Self.e]])
        let h = Self.header(from: Self.b)
        _ = r.originate(h, now: .seconds(10))
        #expect(r.heard(h.relayed(by: Self.c), link: Self.good, firstTime: false, now: .seconds(12)).isEmpty)
        #expect(Self.run(&r, until: .seconds(59)).isEmpty)
    }

    @Test func withoutNeighbourKnowledgeItFloodsAndCancelsOnAnyDuplicate() {
        var r = MeshRouter(me: Self.b, configuration: Self.config, seed: 3)
        _ = r.due(now: .zero)
        let h = Self.header()
        _ = r.heard(h, link: Self.good, firstTime: true, now: .seconds(1))
        #expect(r.heard(h.relayed(by: Self.c), link: Self.good, firstTime: false, now: .seconds(1) + .milliseconds(5)) == [.cancelled(h.key)])
        var s = MeshRouter(me: Self.b, configuration: Self.config, seed: 3)
        _ = s.due(now: .zero)
        _ = s.heard(h, link: Self.good, firstTime: true, now: .seconds(1))
        #expect(Self.run(&s, until: .seconds(30)) == [.transmit(h.relayed(by: Self.b))])
    }

    @Test func sameSeedSameDecisions() {
        func delays(_ seed: UInt64) -> Duration? {
            var r = MeshRouter(me: Self.b, configuration: Self.config, seed: seed)
            _ = r.due(now: .zero)
            _ = r.heardHello(from: Self.a, payload: HelloPayload(publicKey: Self.key, neighbours: [.init(id: Self.b, bucket: 3)]), link: Self.good, now: .zero)
            _ = r.heardHello(from: Self.c, payload: HelloPayload(publicKey: Self.key, neighbours: []), link: Self.good, now: .zero)
            _ = r.heard(Self.header(), link: Self.good, firstTime: true, now: .seconds(1))
            return r.nextDeadline
        }
        #expect(delays(5) == delays(5))
    }

    /// Router `b` hears hellos from `a`, `c` and `twin` (a's short id) at 0, then every 50 s
    /// until 170 s a broadcast: `a`'s own (`relayer` nil), or `e`'s relayed by `relayer`;
    /// returns the neighbours it still has at 181 s (three missed 60-s hellos).
    static func neighboursAfterFrames(relayer: NodeID?, keptByFrames: Bool = true) -> [Neighbour] {
        let twin = NodeID(0x1111_11A1)
        var config = Self.config
        config.neighboursKeptByTheirFrames = keptByFrames
        var r = MeshRouter(me: Self.b, configuration: config, seed: 42)
        _ = r.due(now: .zero)
        for n in [Self.a, Self.c, twin] {
            _ = r.heardHello(from: n, payload: HelloPayload(publicKey: key, neighbours: [.init(id: Self.b, bucket: 3)]), link: good, now: .zero)
        }
        for (i, at) in [50, 100, 150, 170].enumerated() {
            var h = MeshHeader(kind: .broadcast, origin: relayer == nil ? Self.a : Self.e, packetID: UInt32(20 + i), hopStart: 3, expiresAtMinute: 100)
            if let relayer { h = h.relayed(by: relayer) }
            _ = r.heard(h, link: good, firstTime: true, now: .seconds(at))
        }
        _ = r.due(now: .seconds(181))
        return r.neighbours
    }

    @Test("a neighbour whose frames are heard stays in the table without its hellos — its own broadcasts, or relays under a short id no other neighbour has; not by relays under a short id two share; with neighboursKeptByTheirFrames off only hellos keep it; its last hello's time stays apart")
    func neighboursKeptByTheirFrames() {
        let kept = Self.neighboursAfterFrames(relayer: nil)
        #expect(kept.map(\.id) == [Self.a])
        #expect(kept.first?.lastHeard == .seconds(170) && kept.first?.lastHello == .zero)
        #expect(Self.neighboursAfterFrames(relayer: Self.c).map(\.id) == [Self.c])
        #expect(Self.neighboursAfterFrames(relayer: Self.a).isEmpty)
        #expect(Self.neighboursAfterFrames(relayer: nil, keptByFrames: false).isEmpty)
        #expect(Self.neighboursAfterFrames(relayer: Self.c, keptByFrames: false).isEmpty)
    }
}
