import DriftMesh
import Testing

/// Issue 19: relay jitter scaled by the channel utilisation (`quietJitterSlots`).
@Suite struct RouterLoadJitterTests {
    static func config(quiet: Int?, low: Double = 0.2, high: Double = 0.4) -> MeshRouterConfiguration {
        var c = MeshRouterConfiguration()
        c.quietJitterSlots = quiet
        c.jitterUtilisationLow = low
        c.jitterUtilisationHigh = high
        return c
    }

    @Test func jitterGrowsLinearlyBetweenTheTwoUtilisations() {
        let c = Self.config(quiet: 8)
        #expect(c.relayJitterSlots(64, utilisation: 0) == 8)
        #expect(c.relayJitterSlots(64, utilisation: 0.2) == 8)
        #expect(c.relayJitterSlots(64, utilisation: 0.3) == 36)  // halfway: 8 + 56 / 2
        #expect(c.relayJitterSlots(64, utilisation: 0.35) == 50)  // 8 + 56 × 3/4
        #expect(c.relayJitterSlots(64, utilisation: 0.4) == 64)
        #expect(c.relayJitterSlots(64, utilisation: 1) == 64)
        #expect(c.relayJitterSlots(32, utilisation: 0.3) == 20)  // a leader's: 8 + 24 / 2
    }

    @Test func theRankStepScalesByTheSameUtilisations() {
        var c = Self.config(quiet: nil)
        #expect(c.rankStepSlots(utilisation: 0) == 16)  // off: `slotsPerRank`
        c.quietSlotsPerRank = 4
        #expect(c.rankStepSlots(utilisation: 0.1) == 4)
        #expect(c.rankStepSlots(utilisation: 0.3) == 10)  // 4 + 12 / 2
        #expect(c.rankStepSlots(utilisation: 0.6) == 16)
        #expect(c.relayJitterSlots(64, utilisation: 0) == 64)  // the jitter keeps its own setting
    }

    @Test func offOrAboveTheFullJitterChangesNothing() {
        #expect(Self.config(quiet: nil).relayJitterSlots(64, utilisation: 0) == 64)
        #expect(Self.config(quiet: 40).relayJitterSlots(32, utilisation: 0) == 32)  // never longer than the full jitter
        #expect(MeshRouterConfiguration.standard.relayJitterSlots(64, utilisation: 0) == 64)
    }

    @Test func equalThresholdsSwitchAtOnce() {
        let c = Self.config(quiet: 0, low: 0.3, high: 0.3)
        #expect(c.relayJitterSlots(64, utilisation: 0.29) == 0)
        #expect(c.relayJitterSlots(64, utilisation: 0.3) == 64)
    }

    /// The router draws from the scaled jitter and step: with no jitter and steps of 50 slots on
    /// a quiet channel the leader relays at once and the box behind it exactly one step later
    /// (1 ms slots; loaded, steps of 100).
    @Test func theRouterDrawsTheJitterOfItsUtilisation() throws {
        let (a, b, c, d, e, f) = (RouterTests.a, RouterTests.b, RouterTests.c, RouterTests.d, RouterTests.e, RouterRelayOrderTests.f)
        let atB: [NodeID: [NodeID]] = [a: [b, c], c: [a, b, e, f], d: [b]]
        let atC: [NodeID: [NodeID]] = [a: [b, c], b: [a, c, d], e: [c], f: [c]]
        func delay(_ me: NodeID, _ table: [NodeID: [NodeID]], utilisation: Double) throws -> Duration {
            var r = RouterRelayOrderTests.router(me, hears: table)
            r.configuration.quietJitterSlots = 0
            r.configuration.quietSlotsPerRank = 50
            r.channelUtilisation = utilisation
            return try RouterRelayOrderTests.delay(&r)
        }
        #expect(try delay(c, atC, utilisation: 0.1) == .zero)
        #expect(try delay(b, atB, utilisation: 0.1) == .milliseconds(50))  // one quiet rank step
        // Loaded: the full step and jitter again (leader ≤ 10 slots, the other ≤ 50).
        let loaded = try delay(b, atB, utilisation: 0.5)
        #expect(loaded >= .milliseconds(100) && loaded <= .milliseconds(150))
    }
}
