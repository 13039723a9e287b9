import DriftMesh
import DriftStore
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("Mesh seen-set")
struct MeshSeenTests {
    typealias F = MeshFixtures

    @Test("first hearing is true, a duplicate false; isSeen and count follow")
    func firstAndDuplicate() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let key = F.key(F.alice, 7)
        #expect(try !disk.store.isSeen(key))
        #expect(try disk.store.markSeen(key, expiresAt: F.at(3_600), now: F.start))
        #expect(try !disk.store.markSeen(key, expiresAt: F.at(3_600), now: F.at(5)))
        #expect(try disk.store.isSeen(key))
        #expect(try !disk.store.isSeen(F.key(F.alice, 8)))
        #expect(try !disk.store.isSeen(F.key(F.bob, 7)))
        #expect(try disk.store.seenCount() == 1)
    }

    @Test("the seen-set survives closing and reopening the database file")
    func survivesRestart() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        for id in UInt32(0)..<50 {
            #expect(try disk.store.markSeen(F.key(F.alice, id), expiresAt: F.at(600), now: F.start))
        }
        #expect(try disk.store.markSeen(F.key(F.bob, UInt32.max), expiresAt: F.at(600), now: F.start))
        let reopened = try disk.reopen()
        #expect(try reopened.seenCount() == 51)
        #expect(try reopened.isSeen(F.key(F.bob, UInt32.max)))
        #expect(try !reopened.markSeen(F.key(F.alice, 49), expiresAt: F.at(600), now: F.at(60)))
        #expect(try reopened.markSeen(F.key(F.alice, 50), expiresAt: F.at(600), now: F.at(60)))
    }

    @Test("pruning keeps an entry ≥ 24 h after first heard, even when its frame expired sooner")
    func minimumRetention() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let key = F.key(F.alice, 1)
        _ = try disk.store.markSeen(key, expiresAt: F.at(600), now: F.start)
        #expect(try disk.store.pruneSeen(now: F.at(3_600)) == 0)
        #expect(try disk.store.pruneSeen(now: F.at(86_400 - 1)) == 0)
        #expect(try disk.store.isSeen(key))
        #expect(try disk.store.pruneSeen(now: F.at(86_400)) == 1)
        #expect(try !disk.store.isSeen(key))
    }

    @Test("pruning keeps an entry until its frame's expiry when that is later than 24 h")
    func untilExpiry() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let key = F.key(F.alice, 2)
        _ = try disk.store.markSeen(key, expiresAt: F.at(3 * 86_400), now: F.start)
        #expect(try disk.store.pruneSeen(now: F.at(2 * 86_400)) == 0)
        #expect(try disk.store.pruneSeen(now: F.at(3 * 86_400 - 1)) == 0)
        #expect(try disk.store.pruneSeen(now: F.at(3 * 86_400)) == 1)
    }

    @Test("an absurd expiry is capped at 30 days")
    func cap() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        _ = try disk.store.markSeen(F.key(F.bob, 3), expiresAt: F.at(400 * 86_400), now: F.start)
        #expect(try disk.store.pruneSeen(now: F.at(30 * 86_400 - 1)) == 0)
        #expect(try disk.store.pruneSeen(now: F.at(30 * 86_400)) == 1)
    }

    @Test("a duplicate does not extend retention")
    func duplicateKeepsRetention() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let key = F.key(F.alice, 4)
        _ = try disk.store.markSeen(key, expiresAt: F.at(60), now: F.start)
        _ = try disk.store.markSeen(key, expiresAt: F.at(10 * 86_400), now: F.at(80_000))
        #expect(try disk.store.pruneSeen(now: F.at(86_400)) == 1)
    }

    @Test("table is WITHOUT ROWID with primary key (origin, packet_id)")
    func schema() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let sql = try disk.store.database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'mesh_seen'")
        }
        #expect(sql?.contains("WITHOUT ROWID") == true)
        #expect(sql?.contains("PRIMARY KEY (origin, packet_id)") == true)
    }

    @Test("racing callers on one key: exactly one first hearing")
    func concurrentMarks() async throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let store = disk.store
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { try store.markSeen(F.key(F.alice, 99), expiresAt: F.at(60), now: F.start) }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.filter { $0 }.count == 1)
    }
}
