@testable import DriftDaemon
import DriftCore
import DriftMesh
import DriftStore
import Foundation
import HTTPTypes
import Testing

/// The routes of chats hosted on other boxes, on a box whose mesh bottle service hears the
/// host's frames from the test (as if they came over the radio): the host relays lines to this
/// box, not to people, so this box shows them only to the visitors the host admitted
/// (`docs/mesh-bottles.md`, "Who may join from afar").
@Suite("Mesh chat routes: a remote chat's lines only for visitors the host admitted")
struct MeshChatRouteTests {
    static let linesPath = "/api/v1/mesh/chats/{id}/lines"

    /// `chat` arrives at `service` from `host`.
    static func hear(_ chat: BottleMeshWire.Chat, from host: NodeID, at service: MeshBottleService) async {
        await service.receiveChat(MeshDelivery(key: PacketKey(origin: host, packetID: .random(in: 1...UInt32.max)), origin: host,
                                               destination: service.node.me, hops: 2,
                                               message: MeshMessage(port: MeshMessage.Port.chat.rawValue, body: chat.encoded),
                                               receivedAt: Date()))
    }

    @Test("lines of a chat hosted elsewhere: 200 for the admitted visitor, 403 not_admitted for one who never joined, is pending or was refused; the listing stays public")
    func linesOnlyForAdmitted() async throws {
        let document = try OpenAPIDocument.load()
        var options = APIHarness.Options()
        options.mesh = true
        try await APIHarness.run(options) { harness in
            let mesh = try #require(harness.meshBottles)
            let host = BoxKeyPair().nodeID
            let id = BottleID(uuid: UUID())
            let (alice, bob) = (try await harness.newVisitor(), try await harness.newVisitor())
            func participant(_ token: String) throws -> ParticipantID {
                harness.processor.participant(try DeviceToken(encoded: token).hash, in: id)
            }
            let path = "/api/v1/mesh/chats/\(id)/lines"
            document.expect(try await harness.client.get(path, token: alice), .get, Self.linesPath, status: 404)

            // The host announces the chat; anyone here may see the announcement.
            await Self.hear(.open(id, expiresAt: Date().addingTimeInterval(3_600), hint: "under the \u{202E}bridge", access: .open),
                            from: host, at: mesh)
            let listing = try await harness.client.get("/api/v1/mesh/chats", token: bob)
            document.expect(listing, .get, "/api/v1/mesh/chats", status: 200)
            #expect(listing.json["chats"][0]["bottle"].string == id.description, "\(listing)")
            #expect(listing.json["chats"][0]["hint"].string == "under the bridge", "the announced hint keeps no direction override: \(listing)")

            // Alice joins; until the host answers she reads nothing.
            #expect(try await harness.client.post("/api/v1/mesh/chats/\(id)/join", token: alice, json: "{}").code == 202)
            let pending = try await harness.client.get(path, token: alice)
            document.expect(pending, .get, Self.linesPath, status: 403)
            #expect(pending.json["error"]["code"].string == "not_admitted")
            #expect(pending.json["error"]["details"]["admission"]["state"].string == "pending", "\(pending)")

            // The host admits Alice and relays a line to this box.
            await Self.hear(.admission(id, participant: try participant(alice), verdict: .admitted), from: host, at: mesh)
            let someone = ParticipantID(visitor: DeviceToken.generate().hash, bottle: id, secret: APIHarness.secret)
            await Self.hear(.relay(id, message: MessageID.make(at: Date()), participant: someone, label: .nearby, sentAt: Date(),
                                   language: "en", text: "the tide is out"), from: host, at: mesh)
            let admitted = try await harness.client.get(path, token: alice)
            document.expect(admitted, .get, Self.linesPath, status: 200)
            #expect(admitted.json["lines"][0]["text"].string == "the tide is out", "\(admitted)")
            #expect(admitted.json["admission"]["state"].string == "admitted")

            // Bob, on the same box, never joined: the box's copy is not his to read.
            let stranger = try await harness.client.get(path, token: bob)
            document.expect(stranger, .get, Self.linesPath, status: 403)
            #expect(stranger.json["error"]["code"].string == "not_admitted", "\(stranger)")
            #expect(stranger.json["error"]["details"]["admission"]["state"].string == "none", "\(stranger)")
            #expect(!stranger.text.contains("tide"))

            // Bob joins and the host refuses him: still nothing, and he is told why.
            #expect(try await harness.client.post("/api/v1/mesh/chats/\(id)/join", token: bob, json: "{}").code == 202)
            await Self.hear(.admission(id, participant: try participant(bob), verdict: .refused(.wrongPassword)), from: host, at: mesh)
            let refused = try await harness.client.get(path, token: bob)
            document.expect(refused, .get, Self.linesPath, status: 403)
            #expect(refused.json["error"]["details"]["admission"]["state"].string == "refused", "\(refused)")
            #expect(refused.json["error"]["details"]["admission"]["reason"].string == "wrong password", "\(refused)")
            #expect(!refused.text.contains("tide"))
            // Another box saying Bob is admitted counts for nothing here: only the host answers.
            await Self.hear(.admission(id, participant: try participant(bob), verdict: .admitted), from: BoxKeyPair().nodeID, at: mesh)
            #expect(try await harness.client.get(path, token: bob).code == 403)

            // The host erased the chat: Alice's admission outlives it here, the chat does not
            // (404, where it once answered 200 with no lines for ever).
            _ = try await mesh.withStore { try $0.eraseTraces(of: id, tombstoneUntil: Date().addingTimeInterval(3_600)) }
            let gone = try await harness.client.get(path, token: alice)
            document.expect(gone, .get, Self.linesPath, status: 404)
            #expect(gone.json["error"]["code"].string == "not_found", "\(gone)")
        }
    }
}
