import DriftCore
import DriftMesh
import DriftStore
import Foundation
import TestSupport
import Testing

@Suite("Mesh bottle store: directory, sent bottles, links, remote chat replicas, erasure")
struct MeshBottleStoreTests {
    static func store() throws -> (MeshBottleStore, TemporaryDirectory, String) {
        let directory = try TemporaryDirectory(prefix: "mesh-bottles")
        let path = directory.appending("drift.sqlite")
        return (MeshBottleStore(database: try DriftDatabase.open(path: path)), directory, path)
    }

    static let bottle = BottleID(uuid: UUID(uuidString: "01900000-0000-7000-8000-000000000001")!)
    static let creator = try! TokenHash(hex: String(repeating: "ab", count: 32))
    static let watcher = try! TokenHash(hex: String(repeating: "cd", count: 32))
    static let (code, otherCode): (ShareCode, ShareCode) = {
        var generator = SeededGenerator(seed: 11)
        return (ShareCode.random(using: &generator), ShareCode.random(using: &generator))
    }()

    @Test("the directory keeps the newest entry per box and forgets boxes unheard for long")
    func directory() throws {
        let (store, directory, _) = try Self.store()
        defer { directory.remove() }
        let berlin = try GeoPoint(latitude: 52.52, longitude: 13.405)
        try store.rememberBox(MeshBox(node: MeshFixtures.alice, name: "Gate", position: berlin, country: try CountryCode("DE"),
                                      activity: 3, lastSeen: MeshFixtures.at(0)))
        try store.rememberBox(MeshBox(node: MeshFixtures.alice, name: "Gate West", position: nil, country: nil,
                                      activity: 5, lastSeen: MeshFixtures.at(60)))
        try store.rememberBox(MeshBox(node: MeshFixtures.bob, name: "Lake", position: nil, country: nil, activity: 0, lastSeen: MeshFixtures.at(10)))
        #expect(try store.boxes().map(\.name) == ["Gate West", "Lake"])
        #expect(try store.box(MeshFixtures.alice)?.activity == 5)
        #expect(try store.forgetBoxes(unseenSince: MeshFixtures.at(30)) == 1)
        #expect(try store.boxes().map(\.node) == [MeshFixtures.alice])
    }

    @Test("a sent bottle is found by its packet id when confirmed, and by its creator")
    func sent() throws {
        let (store, directory, _) = try Self.store()
        defer { directory.remove() }
        try store.recordSent(MeshSentBottle(bottle: Self.bottle, creator: Self.creator, destination: MeshFixtures.bob, destinationName: "Lake",
                                            shareCode: Self.code, packetID: 4_000_000_000, sentAt: MeshFixtures.at(0), expiresAt: MeshFixtures.at(3_600)))
        #expect(try store.sentBottles(by: Self.creator).first?.deliveredAt == nil)
        let confirmed = try #require(try store.markSentDelivered(packetID: 4_000_000_000, at: MeshFixtures.at(40)))
        #expect(confirmed.deliveredAt == MeshFixtures.at(40) && confirmed.destinationName == "Lake")
        #expect(try store.markSentDelivered(packetID: 7, at: MeshFixtures.at(40)) == nil)
        #expect(try store.sentBottle(shareCode: Self.code)?.bottle == Self.bottle)
        #expect(Self.otherCode != Self.code)
        #expect(try store.sentBottle(shareCode: Self.otherCode) == nil)
    }

    @Test("visitors here watch a bottle hosted elsewhere until it is erased")
    func remoteWatches() throws {
        let (store, directory, _) = try Self.store()
        defer { directory.remove() }
        #expect(try store.watchRemote(Self.bottle, by: Self.watcher, at: MeshFixtures.at(0)))
        #expect(try store.watchRemote(Self.bottle, by: Self.watcher, at: MeshFixtures.at(5)), "watching twice is one watch")
        #expect(try store.remoteWatchers(of: Self.bottle) == [Self.watcher])
        try store.eraseTraces(of: Self.bottle, tombstoneUntil: Date().addingTimeInterval(60))
        #expect(try store.remoteWatchers(of: Self.bottle).isEmpty)
        #expect(try !store.watchRemote(Self.bottle, by: Self.watcher, at: MeshFixtures.at(9)), "an erased bottle cannot be watched")
    }

    @Test("erasing a bottle's traces removes links, replica lines and the sent record, zeroes the bytes, and the tombstone refuses late frames")
    func erase() throws {
        let (store, directory, path) = try Self.store()
        defer { directory.remove() }
        let secretLine = "meet me by the fountain at nine"
        try store.recordSent(MeshSentBottle(bottle: Self.bottle, creator: Self.creator, destination: MeshFixtures.bob, destinationName: "Lake",
                                            shareCode: Self.code, packetID: 9, sentAt: MeshFixtures.at(0), expiresAt: MeshFixtures.at(3_600)))
        #expect(try store.link(Self.bottle, node: MeshFixtures.bob, role: .host, expiresAt: MeshFixtures.at(3_600), note: "by the oak"))
        let line = MeshRemoteLine(id: "m1", bottle: Self.bottle, participant: "p1", label: "local", text: secretLine, sentAt: MeshFixtures.at(5))
        #expect(try store.appendRemoteLine(line))
        #expect(try !store.appendRemoteLine(line), "a line arrives once")
        #expect(try store.remoteChats().first?.note == "by the oak")

        #expect(try store.eraseTraces(of: Self.bottle, tombstoneUntil: Date().addingTimeInterval(3_600)) == 3)
        try store.database.checkpointAndTruncateWAL()
        #expect(try store.links(of: Self.bottle).isEmpty && store.remoteLines(of: Self.bottle).isEmpty && store.sentBottle(Self.bottle) == nil)
        #expect(try store.isErased(Self.bottle))
        #expect(try !store.appendRemoteLine(MeshRemoteLine(id: "m2", bottle: Self.bottle, participant: "p1", label: "local", text: "late", sentAt: MeshFixtures.at(9))))
        #expect(try !store.link(Self.bottle, node: MeshFixtures.bob, role: .host, expiresAt: MeshFixtures.at(3_600)))
        for file in [path, path + "-wal"] {
            let bytes = FileManager.default.contents(atPath: file) ?? Data()
            #expect(bytes.range(of: Data(secretLine.utf8)) == nil, "\(file) still holds the line")
        }
        #expect(try store.pruneTombstones(now: Date().addingTimeInterval(7_200)) == 1)
    }

    @Test("traces past the bottle's expiry are listed for erasure")
    func expired() throws {
        let (store, directory, _) = try Self.store()
        defer { directory.remove() }
        try store.link(Self.bottle, node: MeshFixtures.bob, role: .creator, expiresAt: MeshFixtures.at(100))
        #expect(try store.expiredTraces(now: MeshFixtures.at(99)).isEmpty)
        #expect(try store.expiredTraces(now: MeshFixtures.at(100)) == [Self.bottle])
    }
}
