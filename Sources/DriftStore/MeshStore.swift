import DriftMesh
import Foundation
import GRDB
import Synchronization

/// The mesh's durable state in the box's SQLite database (`docs/mesh-store.md`).
///
/// - the seen-set (`mesh_seen`, ``markSeen(_:expiresAt:now:)``): duplicate suppression that
///   survives restarts;
/// - held frames (`mesh_packets`, ``hold(_:kind:destination:frame:priority:receivedAt:expiresAt:fromMe:)``)
///   for store-and-forward and reconciliation digests, bounded by ``MeshStoreLimits``;
/// - the outbox (`mesh_outbox`, ``enqueue(_:destination:frames:priority:now:expiresAt:)``):
///   messages stored before they are sent, retried on ``RetrySchedule``;
/// - the packet id counter (``nextPacketIDs(count:using:)``), reserved ahead on disk;
/// - the TOFU keyring (`mesh_peers`, ``rememberPeer(_:publicKey:at:link:hops:)``).
///
/// Every method is one transaction; when it returns the change is durable. One instance
/// per database: the packet id counter keeps its reserved block in memory.
public final class MeshStore: Sendable {
    public let database: DriftDatabase
    public let limits: MeshStoreLimits
    public let retrySchedule: RetrySchedule

    /// The in-memory part of the packet id counter (see `MeshStore+PacketIDs.swift`).
    let packetIDs = Mutex(PacketIDBlock())
    /// Frames evicted by the held-packet bounds since this instance was created.
    let evictions = Mutex(0)

    public init(database: DriftDatabase, limits: MeshStoreLimits = MeshStoreLimits(), retrySchedule: RetrySchedule = .standard) {
        self.database = database
        self.limits = limits
        self.retrySchedule = retrySchedule
    }

    /// Frames evicted to stay within ``MeshStoreLimits/maxHeldPackets`` and
    /// ``MeshStoreLimits/maxHeldBytes`` since this instance was created (a metric).
    public var evictedCount: Int { evictions.withLock { $0 } }
}

/// Conversions between the mesh's unsigned ids and `INTEGER` columns.
enum MeshColumn {
    static func int(_ node: NodeID) -> Int64 { Int64(node.rawValue) }
    static func int(_ value: UInt32) -> Int64 { Int64(value) }

    static func uint32(_ value: Int64, table: String, column: String) throws -> UInt32 {
        guard let result = UInt32(exactly: value) else {
            throw MeshStoreError.corruptRow(table: table, column: column, value: String(value))
        }
        return result
    }

    static func node(_ value: Int64, table: String, column: String) throws -> NodeID {
        NodeID(try uint32(value, table: table, column: column))
    }

    static func key(_ row: Row, table: String, origin: String = "origin", packetID: String = "packet_id") throws -> PacketKey {
        PacketKey(origin: try node(row[origin], table: table, column: origin),
                  packetID: try uint32(row[packetID], table: table, column: packetID))
    }

    static func date(_ row: Row, _ column: String) -> Date {
        StoredTime.date(row[column])
    }

    static func bytes(_ row: Row, _ column: String) -> [UInt8] {
        let data: Data = row[column] ?? Data()
        return [UInt8](data)
    }
}
