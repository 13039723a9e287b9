import DriftMesh
import DriftMeshSim
import Foundation
import Testing

@Suite struct SimulationTests {
    static func json(_ r: SimResult) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(r), as: UTF8.self)
    }

    @Test(arguments: [SimRouterKind.ours, .meshtastic])
    func sameSeedSameResult(kind: SimRouterKind) throws {
        let p = SimParameters(nodes: 15, seed: 11, router: kind, messages: 8)
        let first = try Self.json(MeshSimulation(p).run())
        let second = try Self.json(MeshSimulation(p).run())
        #expect(first == second)
        let other = try Self.json(MeshSimulation(SimParameters(nodes: 15, seed: 12, router: kind, messages: 8)).run())
        #expect(first != other)
    }

    @Test func jsonHasTheRequiredKeys() throws {
        let r = MeshSimulation(SimParameters(nodes: 5, seed: 1, router: .ours, messages: 3)).run()
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

    @Test func managedFloodingContentionWindowFollowsTheFirmware() {
        let r = ManagedFloodingRouter(me: NodeID(1), slotMs: 77.232, packetAirtime: .milliseconds(600), seed: 1)
        #expect(r.contentionWindow(snr: -30) == 3)
        #expect(r.contentionWindow(snr: -20) == 3)
        #expect(r.contentionWindow(snr: 10) == 8)
        #expect(r.contentionWindow(snr: 25) == 8)
        #expect(r.contentionWindow(snr: -5) == 5)
    }
}

/// What our router achieves against managed flooding at 30 nodes, over fixed seeds.
///
/// Deterministic (same seeds, same numbers), not timed. It asserts what the design
/// delivers today: more boxes reached in one shot, less airtime per delivery, and every
/// connected box reached after reconciliation. The stricter one-shot targets
/// (reachability ≥ 0.95, usefulness ≥ 0.75, fewer transmissions) are NOT met in this
/// channel model — see docs/mesh-simulation.md.
@Suite struct OutcomeTests {
    @Test func oursBeatsManagedFloodingAtThirtyNodes() {
        let seeds: [UInt64] = [1, 2, 3, 4]
        var ours: [SimResult] = []
        var theirs: [SimResult] = []
        for seed in seeds {
            ours.append(MeshSimulation(SimParameters(nodes: 30, seed: seed, router: .ours)).run())
            theirs.append(MeshSimulation(SimParameters(nodes: 30, seed: seed, router: .meshtastic)).run())
        }
        func mean(_ rs: [SimResult], _ f: (SimResult) -> Double) -> Double { rs.map(f).reduce(0, +) / Double(rs.count) }
        #expect(mean(ours, \.reachability) > mean(theirs, \.reachability) + 0.1)
        #expect(mean(ours, \.airtimePerDeliveredMs) < mean(theirs, \.airtimePerDeliveredMs))
        for r in ours {
            #expect(r.reachabilityAfterSync == 1, "seed \(r.seed): reconciliation must reach every connected box")
        }
    }
}
