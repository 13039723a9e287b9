import DriftMesh
import DriftStore
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("Mesh packet id counter")
struct MeshPacketIDTests {
    private func persistedMark(_ store: MeshStore) throws -> Int64? {
        try store.database.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT next_unreserved FROM mesh_counter WHERE name = 'packet_id'")
        }
    }

    @Test("first use starts at the generator's value; runs are consecutive; the mark is reserved ahead")
    func consecutive() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        var generator = FixedGenerator(value: 5_000)
        #expect(try disk.store.nextPacketIDs(count: 1, using: &generator) == 5_000)
        #expect(try disk.store.nextPacketIDs(count: 3, using: &generator) == 5_001)
        #expect(try disk.store.nextPacketIDs(count: 1, using: &generator) == 5_004)
        #expect(try persistedMark(disk.store) == 5_000 + 1 + 1_024)
    }

    @Test("the random start comes from the injected generator")
    func randomStart() throws {
        let first = try MeshDisk()
        let second = try MeshDisk()
        defer { first.directory.remove(); second.directory.remove() }
        var a = SeededGenerator(seed: 1)
        var b = SeededGenerator(seed: 2)
        #expect(try first.store.nextPacketIDs(using: &a) != second.store.nextPacketIDs(using: &b))
    }

    @Test("a restart (even after a crash mid-block) never repeats an id")
    func reopenNeverRepeats() throws {
        let disk = try MeshDisk(limits: MeshStoreLimits(packetIDReserve: 16))
        defer { disk.directory.remove() }
        var generator = SeededGenerator(seed: 42)
        var handedOut = Set<UInt32>()
        var store = disk.store
        for round in 0..<6 {
            for _ in 0..<(5 + round * 7) {
                let count = 1 + (round % 3)
                let first = try store.nextPacketIDs(count: count, using: &generator)
                for offset in 0..<UInt32(count) {
                    #expect(handedOut.insert(first + offset).inserted, "id \(first + offset) repeated")
                }
            }
            // A "crash": the old instance is dropped without any shutdown step.
            store = try disk.reopen()
        }
        #expect(handedOut.count > 100)
    }

    @Test("wraparound: a run never crosses UInt32.max and never uses 0")
    func wraparound() throws {
        let disk = try MeshDisk(limits: MeshStoreLimits(packetIDReserve: 4))
        defer { disk.directory.remove() }
        var generator = FixedGenerator(value: UInt64(UInt32.max - 2))
        #expect(try disk.store.nextPacketIDs(count: 2, using: &generator) == UInt32.max - 2)
        // UInt32.max alone is left; a 2-id run wraps to 1.
        #expect(try disk.store.nextPacketIDs(count: 2, using: &generator) == 1)
        #expect(try disk.store.nextPacketIDs(count: 1, using: &generator) == 3)
        let reopened = try disk.reopen()
        #expect(try reopened.nextPacketIDs(count: 1, using: &generator) > 3)
    }

    @Test("the last id UInt32.max is handed out, then a reopen starts at 1")
    func lastIDThenReopen() throws {
        let disk = try MeshDisk(limits: MeshStoreLimits(packetIDReserve: 8))
        defer { disk.directory.remove() }
        var generator = FixedGenerator(value: UInt64(UInt32.max))
        #expect(try disk.store.nextPacketIDs(count: 1, using: &generator) == UInt32.max)
        #expect(try persistedMark(disk.store) == Int64(UInt32.max) + 1)
        #expect(try disk.reopen().nextPacketIDs(count: 1, using: &generator) == 1)
    }

    @Test("a generator value of 0 starts at 1; bad counts are refused")
    func zeroAndBadCounts() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        var generator = FixedGenerator(value: 0)
        #expect(throws: MeshStoreError.invalidPacketIDCount(0)) { try disk.store.nextPacketIDs(count: 0, using: &generator) }
        #expect(throws: MeshStoreError.invalidPacketIDCount(256)) { try disk.store.nextPacketIDs(count: 256, using: &generator) }
        #expect(try disk.store.nextPacketIDs(count: 1, using: &generator) == 1)
    }
}
