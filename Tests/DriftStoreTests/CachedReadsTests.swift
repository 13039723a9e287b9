import DriftCore
@testable import DriftStore
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@Suite("Cached reads: the live list and its participants are kept while their tables are unchanged, never stale")
struct CachedReadsTests {
    static let live: Set<BottleState> = [.locked, .openable, .active, .dying]

    @Test("a commit raises the generation of each table it wrote; a read, a rollback and other tables raise none")
    func generations() throws {
        let database = try DriftDatabase.inMemory()
        let store = BottleStore(database: database)
        let generations = database.generations
        let bottle = StoreFixtures.bottleID(1)
        let before = generations.generation(of: ["bottle"])
        _ = try store.create(StoreFixtures.draft(conditions: try StoreFixtures.everyCondition()), id: bottle,
                             origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: StoreFixtures.start)
        let created = generations.generation(of: ["bottle"])
        #expect(created > before)
        #expect(generations.generation(of: ["bottleCondition"]) > 0)

        _ = try store.bottles(in: Self.live)
        #expect(generations.generation(of: ["bottle"]) == created, "a read changes nothing")

        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try database.writer.write { db in
                try db.execute(sql: "UPDATE bottle SET state = 'openable' WHERE id = ?", arguments: [bottle.description])
                throw Abandon()
            }
        }
        #expect(generations.generation(of: ["bottle"]) == created, "a rolled-back write changes nothing")

        let chat = StoreFixtures.bottleID(2)
        _ = try store.createOpened(chat)
        let opened = generations.generation(of: ["bottle", "participant"])
        try store.append(try ChatMessage.make(id: MessageID.make(at: StoreFixtures.start), bottle: chat,
                                              participant: StoreFixtures.participant(in: chat),
                                              sentAt: StoreFixtures.start.addingTimeInterval(2), text: "hi", language: "en"))
        #expect(generations.generation(of: ["bottle", "participant"]) == opened, "a chat line is not a bottle change")
        #expect(generations.generation(of: ["chatMessage"]) > 0)
    }

    @Test("rows a foreign-key action deletes count: erasing a bottle raises its participants' and conditions' tables")
    func cascades() throws {
        let disk = try DiskStore(prefix: "cached-cascade")
        defer { disk.directory.remove() }
        let bottle = StoreFixtures.bottleID(1)
        _ = try disk.store.createOpened(bottle)
        let participants = disk.database.generations.generation(of: ["participant"])
        let survival = disk.database.generations.generation(of: ["chatSurvival"])
        try disk.store.deleteRows(of: bottle)
        #expect(disk.database.generations.generation(of: ["participant"]) > participants)
        #expect(disk.database.generations.generation(of: ["chatSurvival"]) > survival)
    }

    @Test("the live list (on disk, read on the pool's readers) follows every write, and is read again only after one")
    func liveListFollowsWrites() throws {
        let disk = try DiskStore(prefix: "cached-list")
        defer { disk.directory.remove() }
        let store = disk.store
        let misses = { disk.database.bottleReads.misses.withLock { $0 } }
        let first = StoreFixtures.bottleID(1)
        _ = try store.create(StoreFixtures.draft("first"), id: first, origin: StoreFixtures.origin,
                             creator: StoreFixtures.creator, now: StoreFixtures.start)
        #expect(try store.bottles(in: Self.live).map(\.id) == [first])
        let afterFirstRead = misses()
        #expect(try store.bottles(in: Self.live).map(\.id) == [first])
        #expect(try store.bottles(in: Self.live).map(\.id) == [first])
        #expect(misses() == afterFirstRead, "unchanged tables: the kept list")

        try store.apply(.conditionsMet, to: first, at: StoreFixtures.start.addingTimeInterval(1))
        #expect(try store.bottles(in: Self.live).map(\.state) == [.openable])
        #expect(misses() == afterFirstRead + 1)

        let second = StoreFixtures.bottleID(2, at: StoreFixtures.start.addingTimeInterval(5))
        _ = try store.create(StoreFixtures.draft("second"), id: second, origin: StoreFixtures.origin,
                             creator: StoreFixtures.creator, now: StoreFixtures.start.addingTimeInterval(5))
        #expect(try store.bottles(in: Self.live).map(\.id) == [first, second])

        let conditions = [BottleCondition(.delay(UnlockDelay(seconds: 600)))]
        _ = try store.edit(second, with: StoreFixtures.draft("second, edited", conditions: conditions), by: StoreFixtures.creator,
                           now: StoreFixtures.start.addingTimeInterval(6))
        let edited = try #require(try store.bottles(in: Self.live).last)
        #expect(edited.conditions == conditions)

        // Another state set is another entry; both follow the same writes.
        #expect(try store.bottles(in: [.openable]).map(\.id) == [first])
        try store.deleteRows(of: first)
        #expect(try store.bottles(in: [.openable]).isEmpty)
        #expect(try store.bottles(in: Self.live).map(\.id) == [second])
    }

    @Test("participants of the listed chats follow joins and erasures")
    func participantsFollowWrites() throws {
        let disk = try DiskStore(prefix: "cached-participants")
        defer { disk.directory.remove() }
        let store = disk.store
        let chat = StoreFixtures.bottleID(1)
        _ = try store.createOpened(chat)
        let opener = StoreFixtures.participant(in: chat)
        #expect(try store.participants(ofEach: [chat])[chat]?.map(\.participant) == [opener])
        let misses = disk.database.participantReads.misses.withLock { $0 }
        _ = try store.participants(ofEach: [chat])
        #expect(disk.database.participantReads.misses.withLock { $0 } == misses)

        let newcomer = StoreFixtures.participant(StoreFixtures.token(7).hash, in: chat)
        _ = try store.recordParticipant(newcomer, in: chat, at: StoreFixtures.start.addingTimeInterval(10), box: nil, label: nil)
        #expect(Set(try store.participants(ofEach: [chat])[chat]?.map(\.participant) ?? []) == [opener, newcomer])

        try store.deleteRows(of: chat)
        #expect(try store.participants(ofEach: [chat])[chat] == nil)
    }
}
