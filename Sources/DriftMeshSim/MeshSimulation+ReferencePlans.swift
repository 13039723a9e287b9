import DriftMesh

extension Engine {
    /// The local pruning schemes (`LocalRelayPlans.swift`) on this run's topology, one flood
    /// per message from its origin (by origin box), with nothing colliding.
    func referencePlanOutcomes() -> [(name: String, byOrigin: [Int: PlanOutcome])] {
        let n = nodes.count
        let rssi = topology.rssi, sensitivity = channel.sensitivityDbm
        let hears = { (s: Int, r: Int) in rssi[s][r] >= sensitivity }
        let backbone = RuleKBackbonePlan.backbone(neighbours: TwoHopView.neighbours(count: n, hears: hears))
        let plans: [(String, (Int) -> PlanOutcome)] = [
            ("multipointRelays", { MultipointRelayPlan(origin: $0, count: n, hears: hears).outcome }),
            ("partialDominantPruning", { PartialDominantPruningPlan(origin: $0, count: n, hears: hears).outcome }),
            ("partialDominantPruningAnyCopy", { PartialDominantPruningPlan(origin: $0, count: n, onFirstCopyOnly: false, hears: hears).outcome }),
            ("ruleKBackbone", { RuleKBackbonePlan(origin: $0, count: n, backbone: backbone, hears: hears).outcome }),
        ]
        let origins = Set(originNode.values)
        return plans.map { name, plan in
            (name, Dictionary(uniqueKeysWithValues: origins.map { ($0, plan($0)) }))
        }
    }

    /// The figures of `outcomes` over this run's messages; compared with the exact optimum at
    /// equal reach, as the router is in ``compare(_:with:)``, when `optimum` holds the topology.
    func referencePlanFigures(_ outcomes: [(name: String, byOrigin: [Int: PlanOutcome])],
                              against optimum: MeshOptimum.Instance?) -> [String: ReferencePlanFigures] {
        let n = nodes.count
        let keys = originNode.keys.sorted()
        var figures: [String: ReferencePlanFigures] = [:]
        guard !keys.isEmpty, n > 1 else { return figures }
        for (name, byOrigin) in outcomes {
            var all = (frames: 0, reached: 0, receptions: 0)
            var equal = (messages: 0, frames: 0, receptions: 0, optFrames: 0, optReceptions: 0)
            var compared = 0
            for key in keys {
                let origin = originNode[key]!
                guard let outcome = byOrigin[origin] else { continue }
                all.frames += outcome.transmissions
                all.reached += outcome.reached
                all.receptions += outcome.receptions
                guard let o = optimum?.origins[String(origin)] else { continue }
                compared += 1
                if outcome.reached >= o.reached {
                    equal.messages += 1
                    equal.frames += outcome.transmissions
                    equal.receptions += outcome.receptions
                    equal.optFrames += o.minFrames
                    equal.optReceptions += o.minReceptions
                }
            }
            var f = ReferencePlanFigures(
                transmissions: Double(all.frames) / Double(keys.count),
                reachability: Double(all.reached) / Double(keys.count * (n - 1)),
                usefulness: all.receptions == 0 ? 1 : Double(all.reached) / Double(all.receptions))
            if compared == keys.count {
                f.equalReachShare = Double(equal.messages) / Double(keys.count)
                if equal.messages > 0, equal.optFrames > 0, equal.receptions > 0 {
                    f.framesVsOptimum = Double(equal.frames) / Double(equal.optFrames)
                    f.usefulnessVsOptimum = Double(equal.optReceptions) / Double(equal.receptions)
                }
            }
            figures[name] = f
        }
        return figures
    }
}
