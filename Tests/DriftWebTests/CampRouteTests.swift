import DriftDaemon
import DriftMesh
import DriftStore
import Foundation
import HTTPTypes
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
