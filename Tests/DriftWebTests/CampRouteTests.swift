@testable import DriftDaemon
import DriftMesh
import DriftStore
import Foundation
import HTTPTypes
import Synchronization
import TestSupport
import Testing

@Suite("GET /api/v1/camps")
struct CampRouteTests {
    @Test("without a camp service: empty lists, no token needed, as documented")
    func empty() async throws {
        let document = try OpenAPIDocument.load()
        try await APIHarness.run { harness in
            let reply = try await harness.client.get("/api/v1/camps")
            document.expect(reply, .get, "/api/v1/camps", status: 200)
            #expect(reply.json["camps"].array?.isEmpty == true && reply.json["messages"].array?.isEmpty == true)
            #expect(reply.json["me"].string == "")
        }
    }

    @Test("camps with their distance and an emergency, as the page shows them")
    func listing() async throws {
        let document = try OpenAPIDocument.load()
        let store = CampStore(database: try DriftDatabase.inMemory())
        let node = NodeID(0x0000_0C01)
        let now = Date()
        let here = CampPosition(latitude: 52.52, longitude: 13.405)
        let north = CampPosition(latitude: 52.529, longitude: 13.405)  // ~1 km north
        try store.upsertAnnounce(.init(name: "North", position: north, members: 12, note: "tea"), from: node, at: now)
        try store.record(CampMessageRecord(message: .emergency(.init(emergency: .medical, text: "need a medic", position: north)),
                                           node: node, camp: "North", receivedAt: now, expiresAt: now.addingTimeInterval(3_600), fromMe: false)!)
        var options = APIHarness.Options()
        options.camps = { CampListing(me: "Home", camps: try store.camps(), messages: try store.messages(now: Date()), here: here) }
        try await APIHarness.run(options) { harness in
            let reply = try await harness.client.get("/api/v1/camps")
            document.expect(reply, .get, "/api/v1/camps", status: 200)
            let camp = reply.json["camps"][0]
            #expect(camp["name"].string == "North" && camp["members"].number == 12 && camp["node"].string == "\(node)")
            let distance = try #require(camp["distanceMeters"].number)
            #expect(abs(distance - 1_001) < 5, "\(distance)")
            let message = reply.json["messages"][0]
            #expect(message["kind"].string == "emergency" && message["detail"].string == "medical" && message["text"].string == "need a medic")
            #expect(reply.json["me"].string == "Home")
        }
    }
}

@Suite("Camp news on the box socket")
struct CampNewsTests {
    static func emergency(_ text: String, at: Date) -> CampListing.Message {
        CampListing.Message(node: "0c01", camp: "North", kind: "emergency", detail: "missing-person", text: text,
                            latitude: 52.529, longitude: 13.405, eventStart: nil, eventMinutes: nil,
                            receivedAt: at, expiresAt: at.addingTimeInterval(3_600), fromMe: false)
    }

    /// A camp directory that counts how often it is looked at.
    final class Directory: Sendable {
        let looks = Mutex(0)
        let listing = Mutex(CampListing.empty)

        func look() -> CampListing {
            looks.withLock { $0 += 1 }
            return listing.withLock { $0 }
        }
    }

    @Test("listeners hear a changed listing once per change; nobody is asked while nobody listens")
    func changesOnly() async throws {
        let clock = ManualClock()
        let news = CampNews(interval: .seconds(2))
        let directory = Directory()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await news.run(listing: { directory.look() }, clock: clock)
            }
            // Nobody listens: time passes without a look, and the loop sleeps on no timer of its
            // clock (it waits for a listener).
            while news.idleWaits.load(ordering: .relaxed) == 0 { await Task.yield() }
            clock.advance(by: .seconds(60))
            #expect(directory.looks.withLock { $0 } == 0)
            #expect(clock.sleeperCount == 0, "the loop keeps a timer while nobody listens")

            let (id, events) = news.listen()
            var iterator = events.makeAsyncIterator()
            // The listener woke the loop: it waits out one interval, then looks.
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(2))
            let first = await iterator.next()
            #expect(first?.contains("\"type\":\"camps\"") == true)
            // Unchanged: nothing more; changed: the new listing.
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(2))
            await clock.waitForSleepers(1)
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            var listing = CampListing.empty
            listing.messages = [Self.emergency("a child is lost", at: at)]
            directory.listing.withLock { [listing] in $0 = listing }
            clock.advance(by: .seconds(2))
            let second = await iterator.next()
            #expect(second?.contains("a child is lost") == true, "\(second ?? "nil")")
            #expect(directory.looks.withLock { $0 } == 3)
            news.remove(id)
            #expect(news.listenerCount == 0)
            group.cancelAll()
        }
    }

    @Test("a new emergency reaches an open box socket without a reload, shaped like GET /api/v1/camps")
    func emergencyOnTheBoxSocket() async throws {
        let clock = ManualClock()
        let current = Mutex(CampListing.empty)
        var options = APIHarness.Options()
        options.campClock = clock
        options.camps = { current.withLock { $0 } }
        // The hub greets a box socket with the weather, after the socket listens to the news.
        options.weather = { LiveEventContractTests.weather }
        try await APIHarness.run(options) { harness in
            let token = try await harness.newVisitor()
            let socket = try await LiveSocket.connect(port: harness.port, path: "/api/v1/live", token: token)
            defer { socket.close() }
            #expect(await socket.first(type: "weather") != nil)
            var listing = CampListing.empty
            listing.messages = [CampNewsTests.emergency("a child is lost", at: Date())]
            current.withLock { [listing] in $0 = listing }
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(2))
            let event = try #require(await socket.first(type: "camps"))
            #expect(event["listing"]["messages"][0]["kind"].string == "emergency")
            #expect(event["listing"]["messages"][0]["text"].string == "a child is lost")
        }
    }
}
