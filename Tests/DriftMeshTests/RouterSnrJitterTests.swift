import DriftMesh
import Testing

/// Issue 19: relay jitter weighted by the first copy's SNR (`snrJitterFloorShare`), as
/// Meshtastic weights its contention window.
@Suite struct RouterSnrJitterTests {
    static func config(floor: Double?, minSlots: Int = 0) -> MeshRouterConfiguration {
        var c = MeshRouterConfiguration()
        c.snrJitterFloorShare = floor
        c.snrJitterMinSlots = minSlots
        return c
    }

    @Test func theWindowShrinksGeometricallyTowardsWeakCopies() {
        let c = Self.config(floor: 0.125)
        #expect(c.snrScaledJitterSlots(64, snr: 10) == 64)
        #expect(c.snrScaledJitterSlots(64, snr: 30) == 64)  // strong copies: the full window
        #expect(c.snrScaledJitterSlots(64, snr: 0) == 32)  // a third of the way down: 0.125^(1/3) = 1/2
        #expect(c.snrScaledJitterSlots(64, snr: -10) == 16)  // two thirds: 1/4
        #expect(c.snrScaledJitterSlots(64, snr: -20) == 8)
        #expect(c.snrScaledJitterSlots(64, snr: -40) == 8)  // clamped at the floor
        #expect(c.snrScaledJitterSlots(32, snr: -20) == 4)  // a leader's window
        #expect(c.snrScaledJitterSlots(0, snr: -20) == 0)
    }

    /// Two boxes that heard the packet about equally weakly must not be crammed into a few
    /// slots: the window keeps `snrJitterMinSlots`, and a window already shorter is left alone.
    @Test func theWindowKeepsItsMinimum() {
        let c = Self.config(floor: 0.125, minSlots: 16)
        #expect(c.snrScaledJitterSlots(64, snr: -20) == 16)
        #expect(c.snrScaledJitterSlots(64, snr: -10) == 16)
        #expect(c.snrScaledJitterSlots(64, snr: 0) == 32)
        #expect(c.snrScaledJitterSlots(32, snr: -20) == 16)
        #expect(c.snrScaledJitterSlots(10, snr: -20) == 10)  // never widened
    }

    @Test func offOrOutOfRangeChangesNothing() {
        for floor in [nil, 0, 1, 1.5] as [Double?] {
            #expect(Self.config(floor: floor).snrScaledJitterSlots(64, snr: -20) == 64)
        }
        var c = Self.config(floor: 0.125)
        c.snrJitterLowDb = 10  // an empty range
        #expect(c.snrScaledJitterSlots(64, snr: -20) == 64)
    }

    @Test func theDaemonWeightsByDefault() {
        let standard = MeshRouterConfiguration.standard
        #expect(standard.snrJitterFloorShare == 0.125 && standard.snrJitterMinSlots == 16)
        #expect(standard.snrScaledJitterSlots(64, snr: -20) == 16)
        #expect(standard.snrScaledJitterSlots(64, snr: 10) == 64)
    }

    /// The router draws from the weighted window: a leader with 800 slots of jitter (1 ms)
    /// relays within 100 ms of a copy heard at −20 dB, every seed; a copy heard at 10 dB draws
    /// from the whole 800 ms, so some seeds go later than that.
    @Test func aWeakCopyIsRelayedSooner() throws {
        let (a, b, c) = (RouterTests.a, RouterTests.b, RouterTests.c)
        func delay(snr: Double, seed: UInt64) throws -> Duration {
            var config = MeshRouterConfiguration(helloPeriod: .seconds(60), helloJitter: .zero, slot: .milliseconds(1), jitterSlots: 800, slotsPerRank: 1000)
            config.neighbourLearningPeriod = .zero
            config.leaderJitterSlots = 800
            var r = MeshRouter(me: b, configuration: config, seed: seed)
            _ = r.due(now: .zero)
            // A's copy reaches B; C hears only B.
            let hello = { (list: [NodeID]) in HelloPayload(publicKey: RouterTests.key, neighbours: list.map { .init(id: $0, bucket: 3) }) }
            _ = r.heardHello(from: a, payload: hello([b]), link: RouterTests.good, now: .zero)
            _ = r.heardHello(from: c, payload: hello([b]), link: RouterTests.good, now: .zero)
            let h = MeshHeader(kind: .broadcast, origin: a, packetID: 9, hopStart: 3, expiresAtMinute: 100)
            let now = Duration.seconds(10)
            _ = r.heard(h, link: LinkQuality(rssi: -130, snr: snr), firstTime: true, now: now)
            return try #require(r.nextDeadline) - now
        }
        var strong: [Duration] = []
        for seed in UInt64(1)...20 {
            #expect(try delay(snr: -20, seed: seed) <= .milliseconds(100))
            strong.append(try delay(snr: 10, seed: seed))
        }
        #expect(strong.allSatisfy { $0 <= .milliseconds(800) })
        #expect(strong.contains { $0 > .milliseconds(400) })
    }
}
