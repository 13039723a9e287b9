import DriftMesh
import DriftStore
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("Mesh outbox")
struct MeshOutboxTests {
    typealias F = MeshFixtures

    static let frames: [[UInt8]] = [F.frame(200, fill: 1), F.frame(200, fill: 2), F.frame(17, fill: 3)]

    @discardableResult
    private func enqueueDirected(_ store: MeshStore, _ id: PacketKey = F.key(F.me, 100), priority: Int = 2,
                                 at seconds: TimeInterval = 0, lifetime: TimeInterval = 6 * 3_600) throws -> MeshOutboxEntry {
        try store.enqueue(id, destination: F.alice, frames: Self.frames, priority: priority,
                          now: F.at(seconds), expiresAt: F.at(seconds + lifetime))
    }

    @Test("enqueued messages are stored before sending, due at once, and survive a reopen")
    func enqueueAndReopen() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let entry = try enqueueDirected(disk.store)
        #expect(entry.state == .queued && entry.attempts == 0 && entry.nextAttemptAt == F.start)
        #expect(entry.packetKeys == [100, 101, 102].map { F.key(F.me, $0) })
        let reopened = try disk.reopen()
        let due = try reopened.due(now: F.start)
        #expect(due == [entry])
        #expect(due.first?.frames == Self.frames)
        #expect(try reopened.counts() == MeshOutboxCounts(queued: 1))
    }

    @Test("a directed message follows the retry schedule exactly, then fails and is kept until expiry")
    func retriesThenFails() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let id = F.key(F.me, 100)
        try enqueueDirected(disk.store, lifetime: 2 * 3_600)
        var now = F.start
        for (attempt, delay) in RetrySchedule.standard.delays.enumerated() {
            #expect(try disk.store.due(now: now).map(\.id) == [id])
            let entry = try disk.store.recordAttempt(id, now: now)
            #expect(entry.attempts == attempt + 1)
            #expect(entry.state == .queued)
            let next = now.addingTimeInterval(RetrySchedule.seconds(delay))
            #expect(abs(entry.nextAttemptAt.timeIntervalSince(next)) < 0.001)
            // Not due a millisecond early.
            #expect(try disk.store.due(now: entry.nextAttemptAt.addingTimeInterval(-0.002)).isEmpty)
            now = entry.nextAttemptAt
        }
        // The wait after the 10th attempt has passed: failed, not due, kept.
        #expect(abs(now.timeIntervalSince(F.start) - 3_399.902) < 0.005)
        #expect(try disk.store.due(now: now).isEmpty)
        let failed = try #require(try disk.store.outboxEntry(id))
        #expect(failed.state == .failed && failed.attempts == 10)
        #expect(failed.lastError == "no acknowledgement after 10 attempts")
        #expect(try disk.store.counts() == MeshOutboxCounts(failed: 1))
        #expect(try disk.store.prune(now: F.at(2 * 3_600 - 1)) == 0)
        #expect(try disk.store.prune(now: F.at(2 * 3_600)) == 1)
        #expect(try disk.store.outboxEntry(id) == nil)
    }

    @Test("recordAttempt adds jitter on top of the exact delay")
    func jitter() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let id = F.key(F.me, 100)
        try enqueueDirected(disk.store)
        let entry = try disk.store.recordAttempt(id, now: F.start, jitter: .milliseconds(1_250))
        #expect(entry.nextAttemptAt == F.at(31.25))
        // The node's share of the delay (MeshNodeMachine.Settings.outboxRetryJitter): the
        // second wait is 45 s, a fifth of it 9 s, on top of the attempt's time.
        try disk.store.recordOutgoingAttempt(id, now: F.at(31.25), jitterShare: 0.2)
        #expect(try disk.store.outboxEntry(id)?.nextAttemptAt == F.at(31.25 + 45 + 9))
    }

    @Test("delivery confirmation deletes the frames; a late attempt changes nothing")
    func delivered() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let id = F.key(F.me, 100)
        try enqueueDirected(disk.store)
        try disk.store.recordAttempt(id, now: F.start)
        #expect(try disk.store.markDelivered(id))
        let entry = try #require(try disk.store.outboxEntry(id))
        #expect(entry.state == .delivered && entry.frames.isEmpty && entry.attempts == 1)
        let frameRows = try disk.store.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mesh_outbox_frame") }
        #expect(frameRows == 0)
        #expect(try disk.store.recordAttempt(id, now: F.at(30)).state == .delivered)
        #expect(try disk.store.due(now: F.at(10_000)).isEmpty)
        #expect(try !disk.store.markDelivered(F.key(F.me, 555)))
        #expect(try disk.store.counts() == MeshOutboxCounts(delivered: 1))
    }

    @Test("a broadcast is sent once and not retried")
    func broadcast() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let id = F.key(F.me, 7)
        let entry = try disk.store.enqueue(id, destination: nil, frames: [F.frame(30)], priority: 1, now: F.start, expiresAt: F.at(600))
        #expect(entry.isBroadcast)
        #expect(try disk.store.due(now: F.start).map(\.id) == [id])
        #expect(try disk.store.markSent(id, now: F.at(1)))
        #expect(try !disk.store.markSent(id, now: F.at(2)))
        #expect(try disk.store.due(now: F.at(10_000)).isEmpty)
        let sent = try #require(try disk.store.outboxEntry(id))
        #expect(sent.state == .sent && sent.attempts == 1 && sent.frames == [F.frame(30)])
        #expect(try disk.store.counts() == MeshOutboxCounts(sent: 1))
    }

    @Test("a broadcast's frames are held for reconciliation at once, as this box's own")
    func broadcastHeld() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let id = F.key(F.me, 40)
        try disk.store.enqueue(id, destination: nil, frames: Self.frames, priority: 2, now: F.start, expiresAt: F.at(900))
        #expect(Set(try disk.store.heldKeys(since: F.start, limit: 10)) == Set([40, 41, 42].map { F.key(F.me, $0) }))
        let held = try disk.store.frames(for: [F.key(F.me, 42)])
        #expect(held == [MeshHeldPacket(key: F.key(F.me, 42), kind: .broadcast, destination: nil, frame: Self.frames[2],
                                        priority: 2, receivedAt: F.start, expiresAt: F.at(900), fromMe: true)])
        // A directed message is not held by enqueue.
        try enqueueDirected(disk.store, F.key(F.me, 50))
        #expect(try disk.store.heldUsage().packets == 3)
    }

    @Test("delivery also forgets the message's frames held in mesh_packets")
    func deliveredForgetsHeld() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let id = F.key(F.me, 100)
        try enqueueDirected(disk.store, id)
        for (index, frame) in Self.frames.enumerated() {
            try disk.store.hold(F.key(F.me, 100 + UInt32(index)), kind: .directed, destination: F.alice, frame: frame,
                                priority: 2, receivedAt: F.start, expiresAt: F.at(600), fromMe: true)
        }
        try disk.store.hold(F.key(F.me, 103), kind: .broadcast, destination: nil, frame: [9], priority: 0,
                            receivedAt: F.start, expiresAt: F.at(600), fromMe: true)
        #expect(try disk.store.markDelivered(id))
        #expect(try disk.store.heldKeys(since: F.start, limit: 10) == [F.key(F.me, 103)])
    }

    @Test("due: most urgent first, then oldest; expired messages are not due")
    func dueOrder() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        try enqueueDirected(disk.store, F.key(F.me, 1), priority: 1, at: 0)
        try enqueueDirected(disk.store, F.key(F.me, 2), priority: 5, at: 2)
        try enqueueDirected(disk.store, F.key(F.me, 3), priority: 1, at: 1)
        try enqueueDirected(disk.store, F.key(F.me, 4), priority: 9, at: 0, lifetime: 3)
        #expect(try disk.store.due(now: F.at(5)).map(\.id.packetID) == [2, 1, 3])
    }

    @Test("markFailed gives up a queued message; a delivered one stays delivered")
    func markFailed() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        try enqueueDirected(disk.store, F.key(F.me, 1))
        try enqueueDirected(disk.store, F.key(F.me, 2))
        try disk.store.markDelivered(F.key(F.me, 2))
        #expect(try disk.store.markFailed(F.key(F.me, 1), error: "no route"))
        #expect(try !disk.store.markFailed(F.key(F.me, 2), error: "late"))
        #expect(try disk.store.outboxEntry(F.key(F.me, 1))?.lastError == "no route")
        #expect(try disk.store.counts() == MeshOutboxCounts(delivered: 1, failed: 1))
    }

    @Test("invalid messages are refused with typed errors")
    func invalid() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        let id = F.key(F.me, 1)
        #expect(throws: MeshStoreError.invalidFragmentCount(id, count: 0)) {
            try disk.store.enqueue(id, destination: nil, frames: [], priority: 0, now: F.start, expiresAt: F.at(60))
        }
        #expect(throws: MeshStoreError.emptyFrame(F.key(F.me, 2))) {
            try disk.store.enqueue(id, destination: nil, frames: [[1], []], priority: 0, now: F.start, expiresAt: F.at(60))
        }
        #expect(throws: MeshStoreError.expiryNotAfterCreation(id)) {
            try disk.store.enqueue(id, destination: nil, frames: [[1]], priority: 0, now: F.start, expiresAt: F.start)
        }
        try disk.store.enqueue(id, destination: nil, frames: [[1]], priority: 0, now: F.start, expiresAt: F.at(60))
        #expect(throws: MeshStoreError.duplicateMessage(id)) {
            try disk.store.enqueue(id, destination: nil, frames: [[2]], priority: 0, now: F.start, expiresAt: F.at(60))
        }
        #expect(throws: MeshStoreError.notFound(F.key(F.me, 9))) { try disk.store.recordAttempt(F.key(F.me, 9), now: F.start) }
        #expect(try disk.store.counts() == MeshOutboxCounts(queued: 1))
    }

    @Test("the state column refuses unknown states")
    func stateCheck() throws {
        let disk = try MeshDisk()
        defer { disk.directory.remove() }
        try enqueueDirected(disk.store)
        #expect(throws: DatabaseError.self) {
            try disk.store.database.writer.write { db in try db.execute(sql: "UPDATE mesh_outbox SET state = 'lost'") }
        }
    }
}
