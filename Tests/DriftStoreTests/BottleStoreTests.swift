import DriftCore
import DriftStore
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("Bottle repository")
struct BottleStoreTests {
    let database: DriftDatabase
    var store: BottleStore { BottleStore(database: database) }
    let start = StoreFixtures.start

    init() throws {
        database = try DriftDatabase.inMemory()
    }

    @Test("a bottle with every condition kind, media and origin round-trips field by field")
    func roundTrip() throws {
        let id = StoreFixtures.bottleID(1)
        let image = ImageRef(path: try MediaPath.content(bottle: id, fileName: "image.webp"), format: .webp,
                             byteCount: 12_345, width: 800, height: 600)
        let whisper = AudioRef(path: try MediaPath.content(bottle: id, fileName: "whisper.ogg"), format: .ogg,
                               byteCount: 20_000, durationSeconds: 3.5)
        let draft = StoreFixtures.draft("Unter der Brücke 🌉\nzweite Zeile", conditions: try StoreFixtures.everyCondition(),
                                        oneShot: true, image: image, whisper: whisper)
        // Sub-millisecond time: the store keeps whole milliseconds and says so by returning them.
        let now = start.addingTimeInterval(0.000_4)
        let created = try store.create(draft, id: id, origin: StoreFixtures.origin, creator: StoreFixtures.creator,
                                       now: now, makeShareCode: { StoreFixtures.code(9) })
        #expect(created.createdAt == start)
        #expect(created.shareCode == StoreFixtures.code(9))
        #expect(created.state == .locked)
        #expect(created.conditions == draft.conditions)
        #expect(created.content == draft.content)
        #expect(created.isOneShot)
        #expect(created.origin == StoreFixtures.origin)
        #expect(created.creator == StoreFixtures.creator)
        #expect(created.expiresAt == start.addingTimeInterval(7 * 86_400))

        #expect(try store.bottle(id) == created)
        #expect(try store.bottle(shareCode: created.shareCode) == created)
        #expect(try store.bottle(shareCode: try ShareCode(parsing: created.shareCode.displayForm.lowercased())) == created)
        #expect(try store.bottle(StoreFixtures.bottleID(2)) == nil)
        #expect(try store.contains(id))
        #expect(try store.mediaFiles(of: id).map(\.path) == [image.path, whisper.path])
        #expect(try store.mediaFiles(of: id).map(\.role) == [.image, .whisper])
    }

    @Test("the password is stored only as its salted hash")
    func passwordOnlyHashed() throws {
        let id = StoreFixtures.bottleID(1)
        _ = try store.create(StoreFixtures.draft(conditions: try StoreFixtures.everyCondition()), id: id,
                             origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
        let definition = try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT definition FROM bottleCondition WHERE kind = 'password'")
        }
        let text = try #require(definition)
        #expect(!text.contains("river"))
        #expect(text.contains("pbkdf2-sha256"))
        #expect(text.contains("salt"))
        let stored = try #require(try store.bottle(id)?.condition(.password))
        guard case .password(let hash) = stored.condition else { Issue.record("not a password"); return }
        #expect(PasswordHasher(iterations: 1_000).verify("river", against: hash))
        #expect(stored.hint == "the river's name")
    }

    @Test("share codes are unique: a collision is retried with the next code")
    func shareCodeCollisionRetried() throws {
        let taken = StoreFixtures.code(1)
        _ = try store.create(StoreFixtures.draft(), id: StoreFixtures.bottleID(1), origin: StoreFixtures.origin,
                             creator: StoreFixtures.creator, now: start, makeShareCode: { taken })
        let codes = StoreFixtures.CodeSequence([taken, taken, StoreFixtures.code(2)])
        let second = try store.create(StoreFixtures.draft(), id: StoreFixtures.bottleID(2), origin: StoreFixtures.origin,
                                      creator: StoreFixtures.creator, now: start, makeShareCode: codes.next)
        #expect(second.shareCode == StoreFixtures.code(2))
        #expect(codes.handedOut == 3)
        #expect(try store.bottle(shareCode: taken)?.id == StoreFixtures.bottleID(1))
    }

    @Test("when every code collides, creation fails with a typed error and stores nothing")
    func shareCodeExhausted() throws {
        let taken = StoreFixtures.code(1)
        _ = try store.create(StoreFixtures.draft(), id: StoreFixtures.bottleID(1), origin: StoreFixtures.origin,
                             creator: StoreFixtures.creator, now: start, makeShareCode: { taken })
        #expect(throws: BottleStoreError.shareCodeExhausted(attempts: BottleStore.shareCodeAttempts)) {
            try store.create(StoreFixtures.draft(), id: StoreFixtures.bottleID(2), origin: StoreFixtures.origin,
                             creator: StoreFixtures.creator, now: start, makeShareCode: { taken })
        }
        #expect(try store.contains(StoreFixtures.bottleID(2)) == false)
    }

    @Test("the schema itself enforces share-code uniqueness")
    func shareCodeUniqueInSchema() throws {
        let first = try store.create(StoreFixtures.draft(), id: StoreFixtures.bottleID(1), origin: StoreFixtures.origin,
                                     creator: StoreFixtures.creator, now: start)
        let second = try store.create(StoreFixtures.draft(), id: StoreFixtures.bottleID(2), origin: StoreFixtures.origin,
                                      creator: StoreFixtures.creator, now: start)
        #expect(first.shareCode != second.shareCode)
        #expect(throws: DatabaseError.self) {
            try database.writer.write { db in
                try db.execute(sql: "UPDATE bottle SET shareCode = ? WHERE id = ?",
                               arguments: [first.shareCode.rawValue, second.id.description])
            }
        }
        #expect(throws: BottleStoreError.duplicateBottle(first.id)) {
            try store.insert(first)
        }
    }

    @Test("invalid drafts are refused before anything is stored")
    func invalidDraft() throws {
        #expect(throws: DomainValidationError.self) {
            try store.create(StoreFixtures.draft("   "), id: StoreFixtures.bottleID(1), origin: StoreFixtures.origin,
                             creator: StoreFixtures.creator, now: start)
        }
        #expect(try store.allIDs().isEmpty)
    }

    @Test("discovery lists openable bottles only; creators see their own live bottles")
    func listing() throws {
        let other = StoreFixtures.token(5).hash
        for seed in 1...4 {
            _ = try store.create(StoreFixtures.draft(), id: StoreFixtures.bottleID(UInt64(seed)), origin: StoreFixtures.origin,
                                 creator: seed == 4 ? other : StoreFixtures.creator, now: start.addingTimeInterval(Double(seed)))
        }
        try store.apply(.conditionsMet, to: StoreFixtures.bottleID(1), at: start.addingTimeInterval(10))
        try store.apply(.conditionsMet, to: StoreFixtures.bottleID(3), at: start.addingTimeInterval(10))
        try store.apply(.conditionsMet, to: StoreFixtures.bottleID(4), at: start.addingTimeInterval(10))
        try store.retire(StoreFixtures.bottleID(2), by: StoreFixtures.creator, at: start.addingTimeInterval(11))

        #expect(try store.openable().map(\.id) == [StoreFixtures.bottleID(4), StoreFixtures.bottleID(3), StoreFixtures.bottleID(1)])
        #expect(try store.openable(limit: 1).map(\.id) == [StoreFixtures.bottleID(4)])
        #expect(try store.bottles(createdBy: StoreFixtures.creator).map(\.id) == [StoreFixtures.bottleID(3), StoreFixtures.bottleID(1)])
        #expect(try store.bottles(createdBy: other).map(\.id) == [StoreFixtures.bottleID(4)])
        #expect(try store.bottles(in: [.expired]).map(\.id) == [StoreFixtures.bottleID(2)])
        #expect(try store.expiredIDs() == [StoreFixtures.bottleID(2)])
    }

    @Test("state changes follow the lifecycle table; an invalid one throws and changes nothing")
    func transitionsValidated() throws {
        let id = StoreFixtures.bottleID(1)
        _ = try store.create(StoreFixtures.draft(), id: id, origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
        #expect(throws: BottleStoreError.lifecycle(id, .invalidTransition(from: .locked, trigger: .countdownStarted))) {
            try store.apply(.countdownStarted, to: id, at: start.addingTimeInterval(5))
        }
        #expect(try store.bottle(id)?.state == .locked)
        #expect(try store.bottle(id)?.stateChangedAt == start)

        let openable = try store.apply(.conditionsMet, to: id, at: start.addingTimeInterval(5))
        #expect(openable.state == .openable)
        #expect(try store.bottle(id) == openable)
        #expect(try store.apply(.conditionsLost, to: id, at: start.addingTimeInterval(6)).state == .locked)
        #expect(throws: BottleStoreError.notFound(StoreFixtures.bottleID(9))) {
            try store.apply(.conditionsMet, to: StoreFixtures.bottleID(9), at: start)
        }
        // A firstOpen without recordFirstOpen would leave an opened bottle without opener: the schema refuses.
        try store.apply(.conditionsMet, to: id, at: start.addingTimeInterval(7))
        #expect(throws: DatabaseError.self) { try store.apply(.firstOpen, to: id, at: start.addingTimeInterval(8)) }
        #expect(try store.bottle(id)?.state == .openable)
    }

    @Test("first open records opener, distance, participant and survival in one go")
    func firstOpen() throws {
        let id = StoreFixtures.bottleID(1)
        _ = try store.create(StoreFixtures.draft(), id: id, origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
        let opener = StoreFixtures.participant(in: id)
        let host = StoreFixtures.berlin.destination(meters: 4_000, bearingDegrees: 90)
        // Still stored as locked: recordFirstOpen goes through conditionsMet and firstOpen.
        let (bottle, survival) = try store.recordFirstOpen(id, by: opener, hostPosition: host, box: StoreFixtures.boxID,
                                                           label: .local, at: start.addingTimeInterval(60))
        #expect(bottle.state == .active)
        #expect(bottle.firstOpener == opener)
        #expect(bottle.firstOpenedAt == start.addingTimeInterval(60))
        #expect(abs((bottle.distanceTravelledMeters ?? 0) - 4_000) < 1)
        #expect(try store.bottle(id) == bottle)
        #expect(try store.survival(of: id) == survival)
        #expect(survival.present == [opener])
        #expect(try store.participants(of: id).map(\.participant) == [opener])
        #expect(try store.participants(of: id).first?.label == .local)
        #expect(throws: BottleStoreError.self) {
            try store.recordFirstOpen(id, by: opener, hostPosition: nil, at: start.addingTimeInterval(61))
        }
    }

    @Test("retire and edit: creator only, before the first open")
    func creatorRights() throws {
        let id = StoreFixtures.bottleID(1)
        _ = try store.create(StoreFixtures.draft(), id: id, origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
        #expect(throws: BottleStoreError.lifecycle(id, .notCreator)) {
            try store.retire(id, by: StoreFixtures.visitor, at: start)
        }
        let image = ImageRef(path: try MediaPath.content(bottle: id, fileName: "new.png"), format: .png, byteCount: 10, width: 1, height: 1)
        let (edited, unused) = try store.edit(id, with: StoreFixtures.draft("edited", conditions: [BottleCondition(.delay(UnlockDelay(seconds: 60)))], image: image),
                                              by: StoreFixtures.creator, now: start.addingTimeInterval(30))
        #expect(unused.isEmpty)
        #expect(edited.content.text == "edited")
        #expect(edited.conditions.count == 1)
        #expect(try store.bottle(id) == edited)
        #expect(try store.mediaFiles(of: id).map(\.path) == [image.path])
        let (_, unusedAfterRemoval) = try store.edit(id, with: StoreFixtures.draft("no image"), by: StoreFixtures.creator, now: start.addingTimeInterval(31))
        #expect(unusedAfterRemoval == [image.path])
        #expect(try store.mediaFiles(of: id).isEmpty)

        _ = try store.recordFirstOpen(id, by: StoreFixtures.participant(in: id), hostPosition: nil, at: start.addingTimeInterval(40))
        #expect(throws: BottleStoreError.lifecycle(id, .alreadyOpened)) {
            try store.edit(id, with: StoreFixtures.draft("late"), by: StoreFixtures.creator, now: start.addingTimeInterval(41))
        }
        #expect(throws: BottleStoreError.lifecycle(id, .invalidTransition(from: .active, trigger: .retired))) {
            try store.retire(id, by: StoreFixtures.creator, at: start.addingTimeInterval(42))
        }
    }

    @Test("survival state and its transitions are committed together")
    func survivalCommit() throws {
        let id = StoreFixtures.bottleID(1)
        let opener = StoreFixtures.participant(in: id)
        _ = try store.createOpened(id, opener: opener)
        var survival = try #require(try store.survival(of: id))
        let left = start.addingTimeInterval(100)
        let actions = survival.leave(opener, at: left)
        #expect(actions == [.transition(.countdownStarted, at: left)])
        let dying = try store.commit(survival, actions: actions, of: id, at: left)
        #expect(dying.state == .dying)
        #expect(try store.survival(of: id) == survival)
        #expect(try store.survivals() == [id: survival])

        // An action list the table refuses saves nothing.
        var stale = survival
        let refused = [ChatSurvival.Action.transition(.firstOpen, at: left)]
        _ = stale.tick(at: left.addingTimeInterval(1))
        #expect(throws: BottleStoreError.self) { try store.commit(stale, actions: refused, of: id, at: left) }
        #expect(try store.survival(of: id) == survival)
        #expect(try store.bottle(id)?.state == .dying)
    }

    @Test("watches are idempotent, listed both ways, and refused for unknown bottles")
    func watches() throws {
        let id = StoreFixtures.bottleID(1)
        _ = try store.create(StoreFixtures.draft(), id: id, origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
        let first = try store.watch(id, by: StoreFixtures.visitor, at: start.addingTimeInterval(1))
        let again = try store.watch(id, by: StoreFixtures.visitor, at: start.addingTimeInterval(2))
        #expect(first == again)
        #expect(first.createdAt == start.addingTimeInterval(1))
        #expect(try store.watches(of: id) == [first])
        #expect(try store.watches(by: StoreFixtures.visitor) == [first])
        try store.unwatch(id, by: StoreFixtures.visitor)
        #expect(try store.watches(of: id).isEmpty)
        #expect(throws: BottleStoreError.notFound(StoreFixtures.bottleID(5))) {
            try store.watch(StoreFixtures.bottleID(5), by: StoreFixtures.visitor, at: start)
        }
    }

    @Test("pending events and creator preferences")
    func eventsAndPreferences() throws {
        let id = StoreFixtures.bottleID(1)
        _ = try store.create(StoreFixtures.draft(), id: id, origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
        let opened = DriftEvent(bottle: id, at: start.addingTimeInterval(5), kind: .firstOpen(distanceTravelledMeters: 12))
        let openable = DriftEvent(bottle: id, at: start.addingTimeInterval(1), kind: .becameOpenable)
        let first = try store.enqueue(openable, for: .watchers)
        let second = try store.enqueue(opened, for: .creator)
        #expect(second > first)
        #expect(try store.pendingEvents(of: id).map(\.event) == [openable, opened])
        #expect(try store.pendingEvents(of: id, for: .creator).map(\.event) == [opened])
        try store.removePendingEvents(of: id, upTo: first)
        #expect(try store.pendingEvents(of: id).map(\.id) == [second])

        #expect(try store.preferences(of: id) == NotificationPreferences())
        let quiet = NotificationPreferences(firstOpen: true, participantJoined: false, linesWhileAway: false)
        #expect(throws: BottleStoreError.lifecycle(id, .notCreator)) {
            try store.setPreferences(quiet, for: id, by: StoreFixtures.visitor)
        }
        try store.setPreferences(quiet, for: id, by: StoreFixtures.creator)
        #expect(try store.preferences(of: id) == quiet)
        #expect(throws: BottleStoreError.notFound(StoreFixtures.bottleID(3))) {
            try store.enqueue(DriftEvent(bottle: StoreFixtures.bottleID(3), at: start, kind: .locked), for: .creator)
        }
    }

    @Test("a bottle survives closing and reopening the database file")
    func persistsOnDisk() throws {
        let disk = try DiskStore()
        defer { disk.directory.remove() }
        let id = StoreFixtures.bottleID(1)
        let created = try disk.store.create(StoreFixtures.draft(conditions: try StoreFixtures.everyCondition()), id: id,
                                            origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
        let reopened = BottleStore(database: try DriftDatabase.open(path: disk.path))
        #expect(try reopened.bottle(id) == created)
    }
}
