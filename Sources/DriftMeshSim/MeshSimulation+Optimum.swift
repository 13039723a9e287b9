import DriftMesh

extension Engine {
    /// Fills the optimum fields of `result` when `optimum` holds this run's topology.
    ///
    /// "At equal reach": only messages the router delivered to every box the optimum
    /// reaches are compared (frames and usefulness against the optimum's there); the share
    /// of such messages is reported beside.
    func compare(_ result: inout SimResult, with optimum: MeshOptimum) {
        var links: [[Int]] = []
        for s in nodes.indices {
            for r in nodes.indices where r != s && topology.rssi[s][r] >= channel.sensitivityDbm { links.append([s, r]) }
        }
        guard let instance = optimum.instance(nodes: p.nodes, seed: p.seed, linkChecksum: TopologyExport.checksum(links)) else { return }
        result.referencePlans = referencePlanFigures(referenceOutcomes, against: instance)
        var all = (frames: 0, receptions: 0, reached: 0, messages: 0)
        var equal = (messages: 0, frames: 0, receptions: 0, reached: 0, optFrames: 0, optReceptions: 0)
        var proven = true
        for key in originNode.keys.sorted() {
            guard let o = instance.origins[String(originNode[key]!)] else { return }
            proven = proven && o.minFramesStatus == "Optimal" && o.minReceptionsStatus == "Optimal"
            all.frames += o.minFrames
            all.receptions += o.minReceptions
            all.reached += o.reached
            all.messages += 1
            if (reachedByKey[key] ?? 0) >= o.reached {
                equal.messages += 1
                equal.frames += framesByKey[key] ?? 0
                equal.receptions += receptionsByKey[key] ?? 0
                equal.reached += reachedByKey[key] ?? 0
                equal.optFrames += o.minFrames
                equal.optReceptions += o.minReceptions
            }
        }
        guard all.messages > 0 else { return }
        result.optimumFrames = Double(all.frames) / Double(all.messages)
        result.optimumUsefulness = all.receptions == 0 ? 1 : Double(all.reached) / Double(all.receptions)
        result.optimumProven = proven
        result.equalReachShare = Double(equal.messages) / Double(all.messages)
        if equal.messages > 0, equal.optFrames > 0, equal.receptions > 0 {
            result.framesVsOptimum = Double(equal.frames) / Double(equal.optFrames)
            // usefulness / optimum usefulness at the same reach = optimum receptions / ours.
            result.usefulnessVsOptimum = Double(equal.optReceptions) / Double(equal.receptions)
        }
    }
}
