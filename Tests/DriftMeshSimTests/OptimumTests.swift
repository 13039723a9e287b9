import DriftMesh
import DriftMeshSim
import Foundation
import Testing

/// The exact optimum (tools/mesh-optimum, stored for seeds 7301…7330) against the
/// simulator's topologies, the greedy plan and our router (review finding 4).
@Suite struct OptimumTests {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Resources/mesh-optimum.json")

    static func optimum() throws -> MeshOptimum {
        try MeshOptimum(json: Data(contentsOf: url))
    }

    @Test func storedTopologiesAreTheSimulatorsOwn() throws {
        let optimum = try Self.optimum()
        #expect(optimum.instances.count >= 120)
        for instance in optimum.instances where instance.nodes <= 20 {
            let export = MeshSimulation(SimParameters(nodes: instance.nodes, seed: instance.seed, router: .ours)).exportTopology()
            #expect(export.linkChecksum == instance.linkChecksum, "nodes \(instance.nodes) seed \(instance.seed)")
            #expect(export.links.count == instance.links)
            #expect(Set(export.origins.map(String.init)) == Set(instance.origins.keys))
        }
    }

    /// The greedy plan is not a bound: the optimum never needs more frames or receptions,
    /// and is strictly better on some topologies.
    @Test func theOptimumBeatsTheGreedyPlan() throws {
        let optimum = try Self.optimum()
        var strictlyFewerReceptions = 0
        for instance in optimum.instances where instance.nodes <= 30 {
            let export = MeshSimulation(SimParameters(nodes: instance.nodes, seed: instance.seed, router: .ours)).exportTopology()
            let links = Set(export.links)
            for (originText, o) in instance.origins {
                let origin = try #require(Int(originText))
                let greedy = BroadcastPlan(origin: origin, count: instance.nodes) { s, r in links.contains([s, r]) }
                #expect(o.reached == greedy.reached)
                #expect(o.minFrames <= greedy.transmissions)
                #expect(o.minReceptions <= greedy.receptions)
                if o.minReceptions < greedy.receptions { strictlyFewerReceptions += 1 }
            }
        }
        #expect(strictlyFewerReceptions > 0)
    }

    /// At equal reach no router can send fewer frames than the optimum (collisions only
    /// add frames). Usefulness counts decoded frames, so it is not bounded the same way.
    @Test func routersNeverUndercutTheOptimumsFrames() async throws {
        let optimum = try Self.optimum()
        for kind in SimRouterKind.allCases {
            for seed in UInt64(7301)...7303 {
                var p = SimParameters(nodes: 20, seed: seed, router: kind)
                p.periodPerNode = .seconds(2000)
                let r = await simulate(p, optimum: optimum)
                let share = try #require(r.equalReachShare)
                #expect(r.optimumFrames != nil && r.optimumUsefulness != nil)
                if share > 0 { #expect(try #require(r.framesVsOptimum) >= 1) }
            }
        }
    }
}

/// Review finding 7: repair is no longer free — digests and repaired packets go through the
/// same queue, listen-before-talk and collisions as data, and their airtime is reported.
@Suite struct RepairTests {
    @Test func repairIsPacedAndCosted() async {
        var within = 0.0, oneShot = 0.0
        for r in await simulate((UInt64(7301)...7304).map { SimParameters(nodes: 30, seed: $0, router: .ours) }) {
            #expect(r.syncTransmissions > 0 && r.syncAirtimeMs > 0)
            #expect(abs(r.totalAirtimeMs - (r.dataAirtimeMs + r.helloAirtimeMs + r.syncAirtimeMs)) < 0.01)
            #expect(r.connectedReachWithinRepairWindow >= r.connectedReachability)
            #expect(r.reachabilityAfterSync >= r.connectedReachWithinRepairWindow)
            within += r.connectedReachWithinRepairWindow / 4
            oneShot += r.connectedReachability / 4
        }
        #expect(within > oneShot + 0.1, "repair lifts connected reach: \(oneShot) → \(within)")
    }

    @Test func theBaselineHasNoRepair() async {
        let r = await simulate(SimParameters(nodes: 20, seed: 7301, router: .meshtastic))
        #expect(r.syncTransmissions == 0)
        #expect(r.connectedReachWithinRepairWindow == r.connectedReachability)
    }
}
