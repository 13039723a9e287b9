import DriftCore
import DriftStore
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("Foreign keys and cascading deletes")
struct CascadeTests {
    @Test("every table with a bottleID column references bottle with ON DELETE CASCADE")
    func everyChildTableCascades() throws {
        let database = try DriftDatabase.inMemory()
        let children = try database.writer.read { db -> [String: [Row]] in
            var result: [String: [Row]] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'") {
                let columns = try db.columns(in: table).map(\.name)
                guard columns.contains("bottleID") else { continue }
                result[table] = try Row.fetchAll(db, sql: "SELECT * FROM pragma_foreign_key_list(?)", arguments: [table])
            }
            return result
        }
        #expect(Set(children.keys) == ["bottleCondition", "creatorPreferences", "chatMessage", "participant",
                                       "chatSurvival", "watch", "pendingEvent", "mediaFile", "chatRead"])
        for (table, keys) in children {
            let toBottle = keys.filter { $0["table"] as String? == "bottle" }
            #expect(toBottle.count == 1, "\(table)")
            #expect(toBottle.first?["from"] as String? == "bottleID", "\(table)")
            #expect(toBottle.first?["on_delete"] as String? == "CASCADE", "\(table)")
        }
    }

    @Test("deleting a bottle deletes every row that belongs to it and nothing else")
    func cascade() throws {
        let database = try DriftDatabase.inMemory()
        let store = BottleStore(database: database)
        let start = StoreFixtures.start
        var generator = SeededGenerator(seed: 3)
        func fill(_ bottle: BottleID) throws {
            let image = ImageRef(path: try MediaPath.content(bottle: bottle, fileName: "i.png"), format: .png, byteCount: 5, width: 1, height: 1)
            _ = try store.create(StoreFixtures.draft(conditions: try StoreFixtures.everyCondition(), image: image), id: bottle,
                                 origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
            try store.watch(bottle, by: StoreFixtures.visitor, at: start)
            try store.markRead(bottle, by: StoreFixtures.visitor, at: start)
            try store.enqueue(DriftEvent(bottle: bottle, at: start, kind: .becameOpenable), for: .watchers)
            _ = try store.recordFirstOpen(bottle, by: StoreFixtures.participant(in: bottle), hostPosition: nil, at: start)
            for index in 0..<5 {
                let id = MessageID.make(at: start, using: &generator)
                let audio = AudioRef(path: try MediaPath.chat(bottle: bottle, message: id, fileName: "a.ogg"), format: .ogg,
                                     byteCount: 100, durationSeconds: 2)
                try store.append(try ChatMessage.make(id: id, bottle: bottle, participant: StoreFixtures.participant(in: bottle),
                                                      sentAt: start.addingTimeInterval(Double(index)), text: "line \(index)",
                                                      language: "en", attachment: index == 0 ? .audio(audio) : nil))
            }
        }
        let doomed = StoreFixtures.bottleID(1)
        let kept = StoreFixtures.bottleID(2)
        try fill(doomed)
        try fill(kept)

        let tables = ["bottle", "bottleCondition", "creatorPreferences", "chatMessage", "participant", "chatSurvival",
                      "watch", "pendingEvent", "mediaFile", "chatRead"]
        func counts(_ bottle: BottleID) throws -> [String: Int] {
            try database.writer.read { db in
                var result: [String: Int] = [:]
                for table in tables {
                    let column = table == "bottle" ? "id" : "bottleID"
                    result[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(column) = ?", arguments: [bottle.description])
                }
                return result
            }
        }
        let before = try counts(doomed)
        #expect(before.values.allSatisfy { $0 > 0 }, "every table holds rows of the bottle: \(before)")
        #expect(try store.deleteRows(of: doomed))
        #expect(try counts(doomed).values.allSatisfy { $0 == 0 })
        #expect(try counts(kept) == before)
        #expect(try store.deleteRows(of: doomed) == false)
    }

    @Test("rows that point at a missing bottle are refused")
    func orphansRefused() throws {
        let database = try DriftDatabase.inMemory()
        let missing = StoreFixtures.bottleID(8).description
        #expect(throws: DatabaseError.self) {
            try database.writer.write { db in
                try db.execute(sql: "INSERT INTO watch (bottleID, watcher, createdAt) VALUES (?, ?, 0)",
                               arguments: [missing, String(repeating: "a", count: 64)])
            }
        }
    }

    @Test("media rows accept only relative paths inside the bottle's folder")
    func mediaPathsConstrained() throws {
        let database = try DriftDatabase.inMemory()
        let store = BottleStore(database: database)
        let bottle = StoreFixtures.bottleID(1)
        _ = try store.create(StoreFixtures.draft(), id: bottle, origin: StoreFixtures.origin, creator: StoreFixtures.creator,
                             now: StoreFixtures.start)
        let good = "media/bottles/\(bottle)/content/a.png"
        let bad = ["/var/lib/drift/media/bottles/\(bottle)/content/a.png", "http://box/media/bottles/\(bottle)/a.png",
                   "media/bottles/\(StoreFixtures.bottleID(2))/content/a.png", "media/bottles/\(bottle)/../x/a.png",
                   "media/bottles/\(bottle)//a.png"]
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO mediaFile (path, bottleID, role, byteCount, createdAt) VALUES (?, ?, 'image', 1, 0)",
                           arguments: [good, bottle.description])
        }
        for path in bad {
            #expect(throws: DatabaseError.self, "\(path)") {
                try database.writer.write { db in
                    try db.execute(sql: "INSERT INTO mediaFile (path, bottleID, role, byteCount, createdAt) VALUES (?, ?, 'image', 1, 0)",
                                   arguments: [path, bottle.description])
                }
            }
        }
    }
}

@Suite("Read marks (unread counts)")
struct ChatReadTests {
    @Test("unread: lines after the reader's mark, their own not counted; the mark only moves forward")
    func unread() throws {
        let database = try DriftDatabase.inMemory()
        let store = BottleStore(database: database)
        let start = StoreFixtures.start
        let bottle = StoreFixtures.bottleID(5)
        _ = try store.create(StoreFixtures.draft(), id: bottle, origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
        let opener = StoreFixtures.participant(in: bottle)
        _ = try store.recordFirstOpen(bottle, by: opener, hostPosition: nil, at: start)
        var generator = SeededGenerator(seed: 9)
        func post(_ seconds: Double, by who: ParticipantID) throws {
            let at = start.addingTimeInterval(seconds)
            try store.append(try ChatMessage.make(id: MessageID.make(at: at, using: &generator), bottle: bottle, participant: who,
                                                  sentAt: at, text: "at \(seconds)", language: "en"))
        }
        let creatorSelf = StoreFixtures.participant(StoreFixtures.creator, in: bottle)
        try post(1, by: opener)
        try post(2, by: opener)
        try post(3, by: creatorSelf)
        let me = [bottle: creatorSelf]
        #expect(try store.unreadCounts(in: [bottle], by: StoreFixtures.creator, me: me) == [bottle: 2], "never looked: all but their own")
        try store.markRead(bottle, by: StoreFixtures.creator, at: start.addingTimeInterval(2))
        #expect(try store.unreadCounts(in: [bottle], by: StoreFixtures.creator, me: me).isEmpty)
        try post(4, by: opener)
        try store.markRead(bottle, by: StoreFixtures.creator, at: start.addingTimeInterval(1))  // an older mark changes nothing
        #expect(try store.unreadCounts(in: [bottle], by: StoreFixtures.creator, me: me) == [bottle: 1])
        #expect(throws: BottleStoreError.self) { try store.markRead(StoreFixtures.bottleID(6), by: StoreFixtures.creator, at: start) }
    }
}
