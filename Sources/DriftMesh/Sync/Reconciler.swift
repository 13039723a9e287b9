/// Pure reconciliation decisions between two boxes' holdings.
public enum Reconciler {
    /// Packets we hold that the peer, by its digest, lacks — what we should send it,
    /// in key order. With an incomplete digest only packets of the origins it lists, at or
    /// after the earliest id it lists for that origin, are judged (the rest is unknown).
    public static func missing(held: some Sequence<PacketKey>, digest: SyncDigest) -> [PacketKey] {
        var window: [NodeID: UInt32] = [:]
        if !digest.complete {
            for run in digest.runs { window[run.origin] = min(window[run.origin] ?? .max, run.first) }
        }
        return held.filter { key in
            if digest.contains(key) { return false }
            if digest.complete { return true }
            guard let from = window[key.origin] else { return false }
            return key.packetID >= from
        }.sorted()
    }

    /// Packets the peer's digest lists that we lack — what to ask for, in key order,
    /// at most `limit` (one request frame). Packets `skipping` accepts are left out (the node
    /// skips its own packets, never needed back, and those it asked for already).
    public static func wanted(held: Set<PacketKey>, digest: SyncDigest, limit: Int = SyncRequest.maxKeys,
                              skipping: (PacketKey) -> Bool = { _ in false }) -> [PacketKey] {
        var out: [PacketKey] = []
        for run in digest.runs.sorted(by: { ($0.origin, $0.first) < ($1.origin, $1.first) }) {
            var id = run.first
            while true {
                let key = PacketKey(origin: run.origin, packetID: id)
                if !held.contains(key), !skipping(key) {
                    out.append(key)
                    if out.count >= limit { return out }
                }
                if id == run.last { break }
                id += 1
            }
        }
        return out
    }
}
