import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

/// Issue #17, finding 5: a live socket that is refused says why, before any upgrade, with
/// the API's JSON error and a documented status — and the WebSocket routes asked for
/// without an upgrade answer 426 instead of an undocumented 404.
@Suite("Live routes: refusals before the upgrade say what they are")
struct LiveRefusalTests {
    /// The headers of a WebSocket opening handshake (RFC 6455 §4.1).
    static let upgrade: HTTPFields = [
        .connection: "Upgrade", .upgrade: "websocket",
        .secWebSocketKey: "dGhlIHNhbXBsZSBub25jZQ==", .secWebSocketVersion: "13",
    ]

    @Test("chat socket: unknown or forged token 401, not opened 403, no such bottle 404 — JSON error, documented, no upgrade")
    func chatRefusals() async throws {
        let document = try OpenAPIDocument.load()
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let stranger = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: opener)
            let unknown = DeviceToken.generate().encoded
            let cases: [(token: String, bottle: String, status: Int, code: String)] = [
                (unknown, id, 401, "unauthorized"),
                ("xyz.forged", id, 401, "unauthorized"),
                (stranger, id, 403, "forbidden"),
                (creator, id, 403, "forbidden"),
                (opener, UUID().uuidString.lowercased(), 404, "not_found"),
            ]
            for (token, bottle, status, code) in cases {
                let reply = try await harness.client.send(.get, "/api/v1/bottles/\(bottle)/live?token=\(token)", headers: Self.upgrade)
                ErrorShape.expect(reply, status: status, code: code)
                document.expect(reply, .get, "/api/v1/bottles/{id}/live", status: status)
            }
            // Without a token at all.
            let bare = try await harness.client.send(.get, "/api/v1/bottles/\(id)/live", headers: Self.upgrade)
            ErrorShape.expect(bare, status: 401, code: "unauthorized")
            // A WebSocket client is refused too, and the one who opened it gets in.
            await #expect(throws: LiveSocket.Refused.self) {
                let socket = try await harness.chatSocket(id, as: stranger)
                await socket.closeAndWait()
            }
            let socket = try await harness.chatSocket(id, as: opener)
            #expect(await socket.first(type: "hello") != nil)
            await socket.closeAndWait()
        }
    }

    @Test("box socket: unknown, forged or missing token 401 with the JSON error, documented")
    func boxRefusals() async throws {
        let document = try OpenAPIDocument.load()
        try await APIHarness.run { harness in
            for query in ["?token=\(DeviceToken.generate().encoded)", "?token=nope", ""] {
                let reply = try await harness.client.send(.get, "/api/v1/live\(query)", headers: Self.upgrade)
                ErrorShape.expect(reply, status: 401, code: "unauthorized")
                document.expect(reply, .get, "/api/v1/live", status: 401)
            }
            let visitor = try await harness.newVisitor()
            let socket = try await harness.boxSocket(as: visitor)
            #expect(!socket.isClosed)
            await socket.closeAndWait()
        }
    }

    @Test("a plain GET of a WebSocket route is 426 Upgrade Required with the JSON error, documented")
    func plainGet() async throws {
        let document = try OpenAPIDocument.load()
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: opener)
            let box = try await harness.client.get("/api/v1/live?token=\(opener)")
            ErrorShape.expect(box, status: 426, code: "upgrade_required")
            #expect(box.headers[.upgrade]?.lowercased() == "websocket", "\(box.headers)")
            document.expect(box, .get, "/api/v1/live", status: 426)
            let chat = try await harness.client.get("/api/v1/bottles/\(id)/live?token=\(opener)")
            ErrorShape.expect(chat, status: 426, code: "upgrade_required")
            document.expect(chat, .get, "/api/v1/bottles/{id}/live", status: 426)
            // The refusals come first: a plain GET with a bad token is still 401.
            ErrorShape.expect(try await harness.client.get("/api/v1/live?token=nope"), status: 401, code: "unauthorized")
            // The server goes on serving the page and the API.
            #expect(try await harness.client.get("/api/v1/box", token: opener).code == 200)
        }
    }
}
