import DriftMesh
import DriftMeshSim
import Foundation
import Testing
import TestSupport

/// The literature's local pruning schemes as idealised plans (issue 19's candidate
/// "sender-designated relays from the 2-hop neighbourhood"), docs/mesh-simulation.md.
@Suite struct LocalRelayPlanTests {
    /// Neighbour sets from an undirected edge list.
    static func neighbours(_ count: Int, _ edges: [(Int, Int)]) -> [Set<Int>] {
        var n = [Set<Int>](repeating: [], count: count)
        for (a, b) in edges { n[a].insert(b); n[b].insert(a) }
        return n
    }

    @Test func partialDominantPruningLeavesOutWhatTheSenderReached() {
        // The ring 0 — 1 — 3 — 4 — 2 — 0. Box 1, designated by 0, must still reach 4 (two hops
        // on, not a neighbour of 0 or of 1, nor of their common neighbours): only through 3.
        // Multipoint relays would also name 0, its only way back to 2, which 0 reached itself.
        let ring = Self.neighbours(5, [(0, 1), (1, 3), (3, 4), (4, 2), (2, 0)])
        #expect(PartialDominantPruningPlan.forwardList(of: 1, heardFrom: 0, neighbours: ring) == [3])
        #expect(MultipointRelayPlan.relays(of: 1, neighbours: ring.map { Array($0) }) == [0, 3])
        // The origin covers all its 2-hop neighbours, as a multipoint-relay set does.
        #expect(PartialDominantPruningPlan.forwardList(of: 0, heardFrom: nil, neighbours: ring) == [1, 2])
        // A box's 2-hop neighbour that a common neighbour of sender and box reaches is left out:
        // 0 and 1 share 2, which reaches 3; 1 does not designate 4 for it (dominant pruning,
        // which leaves out only what 0 and 1 reach themselves, would).
        let kite = Self.neighbours(5, [(0, 1), (0, 2), (1, 2), (2, 3), (1, 4), (4, 3)])
        #expect(PartialDominantPruningPlan.forwardList(of: 1, heardFrom: 0, neighbours: kite).isEmpty)
        #expect(MultipointRelayPlan.relays(of: 1, neighbours: kite.map { Array($0) }) == [2])
    }

    @Test func partialDominantPruningOnALine() {
        let line = PartialDominantPruningPlan(origin: 0, count: 4) { s, r in abs(s - r) == 1 }.outcome
        #expect(line == PlanOutcome(transmissions: 3, reached: 3, receptions: 5))
    }

    @Test func aLaterDesignationDoesNotRelayUnlessAsked() {
        // 0 — 1 — 3 — 4 both ways, and 3 hears 0 one way. 3's first copy comes from 0, which
        // did not designate it (its only neighbour is 1); 1 designates 3 for 4, a copy too late.
        let hears = { (s: Int, r: Int) -> Bool in
            let twoWay: Set<[Int]> = [[0, 1], [1, 3], [3, 4]]
            return twoWay.contains([s, r]) || twoWay.contains([r, s]) || (s == 0 && r == 3)
        }
        let asPublished = PartialDominantPruningPlan(origin: 0, count: 5, hears: hears).outcome
        #expect(asPublished.transmissions == 2)
        #expect(asPublished.reached == 2)
        let anyCopy = PartialDominantPruningPlan(origin: 0, count: 5, onFirstCopyOnly: false, hears: hears).outcome
        #expect(anyCopy.transmissions == 3)
        #expect(anyCopy.reached == 3)
    }

    @Test func ruleKBackbones() {
        // A line: the three inner boxes, none covered by a higher-priority neighbour.
        #expect(RuleKBackbonePlan.backbone(neighbours: Self.neighbours(5, [(0, 1), (1, 2), (2, 3), (3, 4)])) == [1, 2, 3])
        // A full mesh: nobody has two neighbours out of each other's range.
        let full = Self.neighbours(4, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])
        #expect(RuleKBackbonePlan.backbone(neighbours: full).isEmpty)
        let fromThree = RuleKBackbonePlan(origin: 3, count: 4, backbone: [], hears: { s, r in s != r }).outcome
        #expect(fromThree == PlanOutcome(transmissions: 1, reached: 3, receptions: 3))
        // Two hubs that both hear every leaf: the lower-priority one (the lower index at equal
        // degree) is covered by the other and leaves the backbone.
        let hubs = Self.neighbours(5, [(1, 2), (1, 0), (1, 3), (1, 4), (2, 0), (2, 3), (2, 4)])
        #expect(RuleKBackbonePlan.backbone(neighbours: hubs) == [2])
    }

    /// With perfect knowledge the backbone is a connected dominating set: on random meshes
    /// with links both ways, every box joined to the origin is reached, and the backbone
    /// never needs more frames than flooding (every box relaying once). Partial dominant
    /// pruning that relays on any copy's naming reaches them all too.
    @Test func backboneAndPruningReachEveryConnectedBox() {
        var random = SeededGenerator(seed: 19)
        for _ in 0..<200 {
            let count = Int.random(in: 3...25, using: &random)
            var edges: [(Int, Int)] = []
            for a in 0..<count { for b in (a + 1)..<count where Double.random(in: 0..<1, using: &random) < 0.2 { edges.append((a, b)) } }
            let neighbours = Self.neighbours(count, edges)
            let backbone = RuleKBackbonePlan.backbone(neighbours: neighbours)
            let origin = Int.random(in: 0..<count, using: &random)
            var component: Set<Int> = [origin]
            var stack = [origin]
            while let x = stack.popLast() { for y in neighbours[x] where component.insert(y).inserted { stack.append(y) } }
            let plan = RuleKBackbonePlan(origin: origin, count: count, backbone: backbone) { s, r in neighbours[s].contains(r) }.outcome
            #expect(plan.reached == component.count - 1)
            #expect(plan.transmissions <= component.count)
            let pruned = PartialDominantPruningPlan(origin: origin, count: count, onFirstCopyOnly: false) { s, r in neighbours[s].contains(r) }.outcome
            #expect(pruned.reached == component.count - 1)
        }
    }

    /// Every run reports the plans; at equal reach none undercuts the exact optimum.
    @Test func runsReportThePlansAgainstTheOptimum() async throws {
        let optimum = try OptimumTests.optimum()
        let names: Set = ["multipointRelays", "partialDominantPruning", "partialDominantPruningAnyCopy", "ruleKBackbone"]
        for seed in UInt64(7301)...7303 {
            var p = SimParameters(nodes: 20, seed: seed, router: .ours)
            p.messages = 10
            let r = await simulate(p, optimum: optimum)
            let plans = try #require(r.referencePlans)
            #expect(Set(plans.keys) == names)
            #expect(plans["multipointRelays"]?.transmissions == r.mprTransmissions)
            for (name, plan) in plans {
                #expect(plan.equalReachShare != nil, "\(name)")
                if let frames = plan.framesVsOptimum { #expect(frames >= 1, "\(name)") }
                if let useful = plan.usefulnessVsOptimum { #expect(useful <= 1, "\(name)") }
                #expect(plan.reachability <= r.reachabilityBound + 1e-9, "\(name)")
            }
            // Without the optimum's data the plans are there, the comparison is not.
            let bare = await simulate(p)
            #expect(bare.referencePlans?["ruleKBackbone"]?.transmissions == plans["ruleKBackbone"]?.transmissions)
            #expect(bare.referencePlans?["ruleKBackbone"]?.framesVsOptimum == nil)
        }
    }
}
