import DriftCore
import DriftStore
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("Chat lines in the store")
struct ChatStoreTests {
    let database: DriftDatabase
    var store: BottleStore { BottleStore(database: database) }
    let start = StoreFixtures.start

    init() throws {
        database = try DriftDatabase.inMemory()
    }

    func line(_ bottle: BottleID, _ text: String, at time: Date, id: MessageID, by participant: ParticipantID? = nil,
              attachment: ChatAttachment? = nil) throws -> ChatMessage {
        try ChatMessage.make(id: id, bottle: bottle, participant: participant ?? StoreFixtures.participant(in: bottle),
                             sentAt: time, text: text, language: "de-CH", attachment: attachment)
    }

    @Test("keyset paging equals ChatTimeline.page at every step, with timestamp ties and every page size")
    func pagingMatchesTimeline() throws {
        let bottle = StoreFixtures.bottleID(1)
        _ = try store.createOpened(bottle)
        var generator = SeededGenerator(seed: 42)
        var messages: [ChatMessage] = []
        for index in 0..<137 {
            // Groups of up to four lines share a millisecond, so the id decides their order.
            let time = start.addingTimeInterval(10 + Double(index / 4) * 0.001 + Double(index % 3))
            let message = try line(bottle, "line \(index)", at: time, id: MessageID.make(at: time, using: &generator))
            messages.append(message)
        }
        for message in messages.shuffled(using: &generator) { try store.append(message) }
        // Another bottle's lines never leak into the page.
        let other = StoreFixtures.bottleID(2)
        _ = try store.createOpened(other)
        try store.append(try line(other, "elsewhere", at: start.addingTimeInterval(20), id: MessageID.make(at: start, using: &generator)))

        #expect(try store.messageCount(in: bottle) == 137)
        for limit in [1, 7, 50, 80] {
            var cursor: ChatCursor?
            var pages = 0
            repeat {
                let expected = ChatTimeline.page(messages, before: cursor, limit: limit)
                let actual = try store.page(of: bottle, before: cursor, limit: limit)
                #expect(actual == expected, "limit \(limit), page \(pages)")
                // Clients page with the opaque form of the cursor.
                cursor = try actual.olderCursor.map { try ChatCursor(encoded: $0.encoded) }
                pages += 1
            } while cursor != nil && pages < 200
            #expect(pages == Int((Double(137) / Double(min(limit, 50))).rounded(.up)))
        }
        // A cursor between stored lines (not itself a line) works too.
        let midway = ChatCursor(sentAt: start.addingTimeInterval(11.0105), id: MessageID(uuid: UUID()))
        #expect(try store.page(of: bottle, before: midway) == ChatTimeline.page(messages, before: midway))
        #expect(try store.page(of: StoreFixtures.bottleID(3)) == ChatTimeline.page([]))
    }

    @Test("lines round-trip, attachments get a media row, closed chats refuse lines")
    func appendRules() throws {
        let bottle = StoreFixtures.bottleID(1)
        var generator = SeededGenerator(seed: 1)
        let messageID = MessageID.make(at: start, using: &generator)
        // Not opened yet: no chat.
        _ = try store.create(StoreFixtures.draft(), id: bottle, origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
        let early = try line(bottle, "too early", at: start, id: messageID)
        #expect(throws: BottleStoreError.chatClosed(bottle, state: .locked)) { try store.append(early) }

        _ = try store.recordFirstOpen(bottle, by: StoreFixtures.participant(in: bottle), hostPosition: nil, at: start)
        let photo = ImageRef(path: try MediaPath.chat(bottle: bottle, message: messageID, fileName: "p.jpg"), format: .jpeg,
                             byteCount: 1_000, width: 640, height: 480)
        let message = try line(bottle, "", at: start.addingTimeInterval(1.5), id: messageID, attachment: .image(photo))
        try store.append(message)
        #expect(try store.message(messageID) == message)
        #expect(try store.mediaFiles(of: bottle).map(\.path) == [photo.path])
        #expect(try store.mediaFiles(of: bottle).first?.message == messageID)
        // The same id twice is refused by the primary key.
        #expect(throws: DatabaseError.self) { try store.append(message) }

        // An attachment restored from elsewhere that points outside its folder.
        let foreign = ChatMessage(restoringID: MessageID.make(at: start, using: &generator), bottle: bottle,
                                  participant: StoreFixtures.participant(in: bottle), sentAt: start, text: "x",
                                  language: try LanguageTag("en"), attachment: .image(photo))
        #expect(throws: BottleStoreError.foreignMedia(photo.path, bottle)) { try store.append(foreign) }
        #expect(throws: BottleStoreError.notFound(StoreFixtures.bottleID(7))) {
            try store.append(try line(StoreFixtures.bottleID(7), "nobody", at: start, id: MessageID.make(at: start, using: &generator)))
        }
    }

    @Test("participants: joining twice keeps the first arrival and the latest sighting")
    func participants() throws {
        let bottle = StoreFixtures.bottleID(1)
        let opener = StoreFixtures.participant(in: bottle)
        _ = try store.createOpened(bottle, opener: opener)
        let guest = StoreFixtures.participant(StoreFixtures.token(9).hash, in: bottle)
        try store.recordParticipant(guest, in: bottle, at: start.addingTimeInterval(50), box: try BoxID("box-paris-2"), label: .sameContinent)
        try store.recordParticipant(guest, in: bottle, at: start.addingTimeInterval(80))
        let stored = try store.participants(of: bottle)
        #expect(stored.map(\.participant) == [opener, guest])
        #expect(stored[1].joinedAt == start.addingTimeInterval(50))
        #expect(stored[1].lastSeenAt == start.addingTimeInterval(80))
        #expect(stored[1].label == .sameContinent)
        #expect(stored[1].box == (try BoxID("box-paris-2")))
    }

    @Test("a list's participants and line counts in one read equal the per-bottle reads")
    func batchedReads() throws {
        var generator = SeededGenerator(seed: 7)
        var bottles: [BottleID] = []
        for index in 1...4 {
            let bottle = StoreFixtures.bottleID(UInt64(index))
            bottles.append(bottle)
            _ = try store.createOpened(bottle)
            for guest in 0..<index {
                try store.recordParticipant(StoreFixtures.participant(StoreFixtures.token(UInt64(10 * index + guest)).hash, in: bottle), in: bottle,
                                            at: start.addingTimeInterval(Double(guest)))
            }
            for number in 0..<(index - 1) * 3 {
                let time = start.addingTimeInterval(Double(10 + number))
                try store.append(try line(bottle, "line \(number)", at: time, id: MessageID.make(at: time, using: &generator)))
            }
        }
        let unknown = StoreFixtures.bottleID(9)
        let participants = try store.participants(ofEach: bottles + [unknown])
        let counts = try store.messageCounts(in: bottles + [unknown])
        for bottle in bottles {
            #expect(participants[bottle] == (try store.participants(of: bottle)))
            #expect(counts[bottle, default: 0] == (try store.messageCount(in: bottle)))
        }
        #expect(participants[unknown] == nil && counts[unknown] == nil)
        #expect(counts[bottles[0]] == nil, "a bottle without lines is absent")
        #expect(try store.participants(ofEach: []).isEmpty && store.messageCounts(in: []).isEmpty)
    }
}
