import DriftMesh
import Foundation
import GRDB
import Synchronization

/// The packet id counter: ids this box stamps on the packets it originates.
///
/// An origin must never reuse a packet id (the AEAD nonce and the seen-set are keyed by
/// it). Ids are handed out from memory inside a block reserved on disk first
/// (`mesh_counter.next_unreserved`, ``MeshStoreLimits/packetIDReserve`` ahead), so after a
/// crash the counter restarts above everything it may have handed out. The first value is
/// random. Id 0 is never used; a run of consecutive ids (fragments) never wraps: when it
/// would pass `UInt32.max` the counter starts again at 1.
extension MeshStore {
    /// `count` (1…255) consecutive fresh packet ids; returns the first (`first + i` for fragment i).
    /// - Parameter generator: picks the random starting value the first time the database is used.
    /// - Throws: ``MeshStoreError/invalidPacketIDCount(_:)``, or a database error (nothing handed out).
    public func nextPacketIDs(count: Int = 1, using generator: inout some RandomNumberGenerator) throws -> UInt32 {
        guard (1...255).contains(count) else { throw MeshStoreError.invalidPacketIDCount(count) }
        return try packetIDs.withLock { block in
            if !block.loaded {
                try loadPacketIDBlock(&block, using: &generator)
            }
            let run = UInt64(count)
            if block.next + run > PacketIDBlock.end {
                // Wrap: a run never crosses UInt32.max. Whatever was reserved beyond is abandoned.
                block.next = 1
                block.reservedEnd = 1
            }
            if block.next + run > block.reservedEnd {
                let mark = min(block.next + run + UInt64(limits.packetIDReserve), PacketIDBlock.end)
                try database.writer.write { db in
                    try db.execute(
                        sql: """
                            INSERT INTO mesh_counter(name, next_unreserved) VALUES ('packet_id', ?)
                            ON CONFLICT(name) DO UPDATE SET next_unreserved = excluded.next_unreserved
                            """,
                        arguments: [Int64(mark)])
                }
                block.reservedEnd = mark
            }
            let first = UInt32(block.next)
            block.next += run
            return first
        }
    }

    /// ``nextPacketIDs(count:using:)`` with the system's random generator.
    public func nextPacketIDs(count: Int = 1) throws -> UInt32 {
        var generator = SystemRandomNumberGenerator()
        return try nextPacketIDs(count: count, using: &generator)
    }

    /// Reads the persisted mark; on first use starts at a random id.
    private func loadPacketIDBlock(_ block: inout PacketIDBlock, using generator: inout some RandomNumberGenerator) throws {
        let stored = try database.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT next_unreserved FROM mesh_counter WHERE name = 'packet_id'")
        }
        if let stored, stored >= 1, UInt64(stored) < PacketIDBlock.end {
            block.next = UInt64(stored)
        } else if let stored, UInt64(stored) >= PacketIDBlock.end {
            block.next = 1  // the last run ended at UInt32.max
        } else {
            let random = UInt32(truncatingIfNeeded: generator.next())
            block.next = UInt64(max(random, 1))
        }
        // Nothing is reserved yet in this process: the first call persists a new mark.
        block.reservedEnd = block.next
        block.loaded = true
    }
}

/// The in-memory half of the packet id counter: `next..<reservedEnd` is reserved on disk.
struct PacketIDBlock: Sendable {
    /// One past `UInt32.max`.
    static let end = UInt64(UInt32.max) + 1
    var loaded = false
    var next: UInt64 = 1
    var reservedEnd: UInt64 = 1
}
