import DriftMesh
import DriftStore
import Foundation
import TestSupport
import Testing

@Suite("Camp directory (camps, camp_messages)")
struct CampStoreTests {
    static let start = StoreFixtures.start
    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }
    static let north = NodeID(0x0000_0C01)
    static let south = NodeID(0x0000_0C02)
    static let here = CampPosition(latitude: 52.47312, longitude: 13.40191)

    static func store(maxMessages: Int = 200) throws -> CampStore {
        CampStore(database: try DriftDatabase.inMemory(), maxMessages: maxMessages)
    }

    static func record(_ message: CampMessage, from node: NodeID, at seconds: TimeInterval, lifetime: TimeInterval = 3_600) -> CampMessageRecord {
        CampMessageRecord(message: message, node: node, camp: "", receivedAt: at(seconds), expiresAt: at(seconds + lifetime), fromMe: false)!
    }

    @Test("an announce adds a camp; a later one replaces its facts and keeps first seen")
    func upsert() throws {
        let store = try Self.store()
        #expect(try store.upsertAnnounce(.init(name: "North", position: Self.here, members: 12, note: "tea"), from: Self.north, at: Self.start))
        #expect(try !store.upsertAnnounce(.init(name: "North Camp", position: nil, members: 14), from: Self.north, at: Self.at(300)))
        let camps = try store.camps()
        #expect(camps == [CampRecord(node: Self.north, name: "North Camp", position: nil, members: 14, note: "", firstSeen: Self.start,
                                     lastSeen: Self.at(300), lastKind: "announce")])
    }

    @Test("list is newest first; messages from a camp move its last seen and kind")
    func listOrderAndTouch() throws {
        let store = try Self.store()
        try store.upsertAnnounce(.init(name: "North", position: Self.here, members: 1), from: Self.north, at: Self.start)
        try store.upsertAnnounce(.init(name: "South", position: nil, members: 2), from: Self.south, at: Self.at(10))
        #expect(try store.camps().map(\.name) == ["South", "North"])
        try store.record(Self.record(.emergency(.init(emergency: .fire, text: "grass fire", position: Self.here)), from: Self.north, at: 20))
        let camps = try store.camps()
        #expect(camps.map(\.name) == ["North", "South"])
        #expect(camps.first?.lastKind == "emergency" && camps.first?.lastSeen == Self.at(20))
        try store.touch(Self.south, kind: .ping, at: Self.at(30))
        #expect(try store.camps().first?.name == "South")
        // A touch of an unknown camp creates nothing.
        try store.touch(NodeID(0x99), kind: .ping, at: Self.at(40))
        #expect(try store.counts().camps == 2)
    }

    @Test("messages keep their fields, list newest first and vanish at their expiry")
    func messages() throws {
        let store = try Self.store()
        let stored = try store.record(Self.record(.request(.init(resource: .water, text: "20 l")), from: Self.north, at: 0, lifetime: 100))
        #expect(stored.id > 0 && stored.kind == .request && stored.detail == "water" && stored.text == "20 l")
        try store.record(Self.record(.event(.init(title: "Drums", startMinute: 28_620_000, durationMinutes: 90)), from: Self.south, at: 10, lifetime: 1_000))
        try store.record(Self.record(.emergency(.init(emergency: .medical, text: "help", position: Self.here)), from: Self.south, at: 20, lifetime: 1_000))
        let listed = try store.messages(now: Self.at(50))
        #expect(listed.map(\.kind) == [.emergency, .event, .request])
        #expect(listed[0].position == Self.here && listed[0].detail == "medical")
        #expect(listed[1].eventStart == Date(timeIntervalSince1970: 28_620_000 * 60) && listed[1].eventMinutes == 90 && listed[1].detail == "Drums")
        #expect(try store.messages(now: Self.at(150)).map(\.kind) == [.emergency, .event])
        #expect(try store.deleteExpiredMessages(now: Self.at(150)) == 1)
        #expect(try store.counts().messages == 2)
    }

    @Test("the message list is bounded; emergencies are evicted last")
    func bounded() throws {
        let store = try Self.store(maxMessages: 3)
        try store.record(Self.record(.emergency(.init(emergency: .fire, text: "fire", position: nil)), from: Self.north, at: 0))
        for i in 1...5 {
            try store.record(Self.record(.chat(.init(camp: "North", text: "line \(i)")), from: Self.north, at: Double(i)))
        }
        let texts = try store.messages(now: Self.at(10)).map(\.text)
        #expect(texts == ["line 5", "line 4", "fire"])
    }

    @Test("camps unseen since the cutoff are forgotten and counted; heard ones stay")
    func forget() throws {
        let store = try Self.store()
        try store.upsertAnnounce(.init(name: "North", position: nil, members: 1), from: Self.north, at: Self.start)
        try store.upsertAnnounce(.init(name: "South", position: nil, members: 1), from: Self.south, at: Self.at(3_600))
        #expect(try store.forget(unseenBefore: Self.at(60)) == 1)
        #expect(try store.camps().map(\.name) == ["South"])
        #expect(try store.forget(unseenBefore: Self.at(60)) == 0)
        #expect(try store.forget(unseenBefore: Self.at(86_400)) == 1)
        #expect(try store.counts().camps == 0)
    }

    @Test("the sweep forgets unseen camps and deletes expired messages together, counting the camps")
    func sweep() throws {
        let store = try Self.store()
        try store.upsertAnnounce(.init(name: "North", position: nil, members: 1), from: Self.north, at: Self.start)
        try store.upsertAnnounce(.init(name: "South", position: nil, members: 1), from: Self.south, at: Self.at(3_600))
        try store.record(Self.record(.chat(.init(camp: "North", text: "old")), from: Self.north, at: 0, lifetime: 100))
        try store.record(Self.record(.chat(.init(camp: "South", text: "new")), from: Self.south, at: 3_600, lifetime: 1_000))
        #expect(try store.sweep(unseenBefore: Self.at(60), now: Self.at(3_600)) == 1)
        #expect(try store.camps().map(\.name) == ["South"])
        #expect(try store.counts() == (camps: 1, messages: 1))
        #expect(try store.sweep(unseenBefore: Self.at(60), now: Self.at(3_600)) == 0)
    }

    @Test("the directory survives a reopen of the database file")
    func persists() throws {
        let directory = try TemporaryDirectory(prefix: "camps")
        defer { directory.remove() }
        let path = directory.appending("drift.sqlite")
        try CampStore(database: try DriftDatabase.open(path: path))
            .upsertAnnounce(.init(name: "North", position: Self.here, members: 7, note: "n"), from: Self.north, at: Self.start)
        let reopened = CampStore(database: try DriftDatabase.open(path: path))
        #expect(try reopened.camps().first?.position == Self.here)
        #expect(try reopened.camps().first?.members == 7)
    }
}
