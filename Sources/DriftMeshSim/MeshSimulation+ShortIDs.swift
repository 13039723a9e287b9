import DriftMesh

extension Engine {
    /// Share of boxes whose neighbourhood (the box and every box it decodes or that decodes
    /// it) holds two ids with the same low byte — the relayer field (review finding 6).
    func shortIDCollisionShare() -> Double {
        var colliding = 0
        for b in nodes.indices {
            var ids: Set<UInt8> = [nodes[b].id.shortID]
            var clash = false
            for o in nodes.indices where o != b {
                let linked = topology.rssi[o][b] >= channel.sensitivityDbm || topology.rssi[b][o] >= channel.sensitivityDbm
                if linked, !ids.insert(nodes[o].id.shortID).inserted { clash = true }
            }
            if clash { colliding += 1 }
        }
        return nodes.isEmpty ? 0 : Double(colliding) / Double(nodes.count)
    }
}
