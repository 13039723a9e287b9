import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

@Suite("Hostile input: refused cleanly, the server keeps answering")
struct HostileInputTests {
    @Test("deeply nested JSON, invalid UTF-8, an overlong line and a bad language are clear 4xx")
    func hostileBodies() async throws {
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: opener)
            let nested = String(repeating: "[", count: 60_000) + String(repeating: "]", count: 4_000)
            ErrorShape.expect(try await client.post("/api/v1/bottles", token: creator, json: nested), status: 400, code: "bad_request")
            let deepObject = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
            ErrorShape.expect(try await client.post("/api/v1/bottles", token: creator, json: deepObject), status: 400, code: "bad_request")
            ErrorShape.expect(try await client.send(.post, "/api/v1/bottles", token: creator, body: [0x7B, 0x22, 0x74, 0xFF, 0xFE, 0x22, 0x7D],
                                                    contentType: "application/json"), status: 400, code: "bad_request")
            let long = String(repeating: "x", count: 20_000)
            ErrorShape.expect(try await client.post("/api/v1/bottles/\(id)/messages", token: opener, json: #"{"text":"\#(long)","language":"en"}"#),
                              status: 422, code: "invalid")
            ErrorShape.expect(try await client.post("/api/v1/bottles/\(id)/messages", token: opener, json: #"{"text":"hi","language":"not a language"}"#),
                              status: 422, code: "invalid")
            // Still serving.
            #expect(try await client.get("/api/v1/box", token: creator).code == 200)
            #expect(try await client.get("/api/v1/bottles/\(id)/messages", token: opener).json["messages"].array?.isEmpty == true)
        }
    }

    @Test("live sockets: Authorization header accepted, oversized and junk messages do not hurt the server")
    func liveSocketInput() async throws {
        // The chat must outlive a loaded machine: between the socket the oversized message
        // closes and the next one, the opener is inside by grace, then the countdown runs.
        var options = APIHarness.Options(presenceGrace: 600)
        options.survival = SurvivalPolicy(lifespan: 3600, countdown: 600)
        try await APIHarness.run(options) { harness in
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: opener)
            let byHeader = try await LiveSocket.connect(port: harness.port, path: "/api/v1/bottles/\(id)/live", token: nil,
                                                        headers: [.authorization: "Bearer \(opener)"])
            #expect(await byHeader.first(type: "hello") != nil)
            let box = try await LiveSocket.connect(port: harness.port, path: "/api/v1/live", token: nil,
                                                   headers: [.authorization: "Bearer \(creator)"])
            byHeader.send(String(repeating: "x", count: 10_000))
            box.send(#"{"type":"typing","junk":"# + String(repeating: "[", count: 2_000) + "}")
            box.send("\u{0}\u{1}not json")
            // The oversized message may close that socket; the server keeps serving either way.
            _ = await byHeader.waitClosed(timeout: .seconds(2))
            #expect(try await harness.client.get("/api/v1/box", token: creator).code == 200)
            let again = try await harness.chatSocket(id, as: opener)
            #expect(await again.first(type: "hello") != nil)
            let line = try await harness.client.post("/api/v1/bottles/\(id)/messages", token: opener, json: #"{"text":"still here","language":"en"}"#)
            #expect(line.code == 201)
            #expect(await again.first(type: "message") { $0["message"]["text"].string == "still here" } != nil)
            for socket in [byHeader, box, again] { await socket.closeAndWait() }
        }
    }
}
