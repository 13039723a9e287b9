import DriftMesh
import Foundation
import GRDB

/// The TOFU keyring (`mesh_peers`): the first public key heard for a node id wins and
/// survives restarts; a different key for the same id is refused.
///
/// The store does not check that the node id derives from the key (the first four bytes of
/// its SHA-256): the caller verifies that before remembering.
extension MeshStore {
    /// Pins `publicKey` for `node` the first time; afterwards updates last seen, link and hops
    /// when the key matches and refuses (changing nothing) when it does not.
    /// - Throws: ``MeshStoreError/invalidPublicKey(_:length:)``, ``MeshStoreError/broadcastIsNoPeer``.
    @discardableResult
    public func rememberPeer(_ node: NodeID, publicKey: [UInt8], at now: Date, link: LinkQuality? = nil, hops: Int? = nil) throws -> MeshPeerRemembrance {
        guard node != .broadcast else { throw MeshStoreError.broadcastIsNoPeer }
        guard publicKey.count == 32 else { throw MeshStoreError.invalidPublicKey(node, length: publicKey.count) }
        let stamp = StoredTime.milliseconds(now)
        let hops = hops.map { min(max($0, 0), 255) }
        return try database.writer.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT public_key FROM mesh_peers WHERE node_id = ?", arguments: [MeshColumn.int(node)]) {
                let pinned = MeshColumn.bytes(row, "public_key")
                guard pinned == publicKey else { return .keyMismatch(pinned: pinned) }
                try db.execute(
                    sql: """
                        UPDATE mesh_peers SET last_seen = MAX(last_seen, ?),
                            last_rssi = COALESCE(?, last_rssi), last_snr = COALESCE(?, last_snr), hops = COALESCE(?, hops)
                        WHERE node_id = ?
                        """,
                    arguments: [stamp, link?.rssi, link?.snr, hops, MeshColumn.int(node)])
                return .known
            }
            try db.execute(
                sql: """
                    INSERT INTO mesh_peers (node_id, public_key, first_seen, last_seen, last_rssi, last_snr, hops)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [MeshColumn.int(node), Data(publicKey), stamp, stamp, link?.rssi, link?.snr, hops])
            return .new
        }
    }

    /// The peer with this node id, if heard.
    public func peer(_ node: NodeID) throws -> MeshPeer? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM mesh_peers WHERE node_id = ?", arguments: [MeshColumn.int(node)]).map(Self.peer)
        }
    }

    /// Every peer, by node id.
    public func peers() throws -> [MeshPeer] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM mesh_peers ORDER BY node_id").map(Self.peer)
        }
    }

    static func peer(_ row: Row) throws -> MeshPeer {
        let rssi: Double? = row["last_rssi"]
        let snr: Double? = row["last_snr"]
        let link: LinkQuality? = if let rssi, let snr { LinkQuality(rssi: rssi, snr: snr) } else { nil }
        return MeshPeer(
            node: try MeshColumn.node(row["node_id"], table: "mesh_peers", column: "node_id"),
            publicKey: MeshColumn.bytes(row, "public_key"), firstSeen: MeshColumn.date(row, "first_seen"),
            lastSeen: MeshColumn.date(row, "last_seen"), lastLink: link, hops: row["hops"])
    }
}
