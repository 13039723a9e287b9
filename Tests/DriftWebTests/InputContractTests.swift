import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import NIOWebSocket
import Testing

/// Issue #17, finding 6: input the documentation refuses is refused — a JSON body without
/// `Content-Type: application/json` (415), a chunked body over the limit (413, not 500),
/// live-socket messages over 4 KiB however they are framed (close 1009), and visitor text
/// that shows nothing or carries direction overrides and tag characters.
extension APIHarness.Options {
    /// Rate limits out of the way (a test that sends many refused requests), presence grace 60 s.
    static var roomy: APIHarness.Options {
        var options = APIHarness.Options(presenceGrace: 60)
        let plenty = RateLimiter.Rule(burst: 1_000, perHour: 100_000)
        options.limits.createPerToken = plenty
        options.limits.createPerClient = plenty
        options.limits.postPerToken = plenty
        options.limits.postPerClient = plenty
        options.limits.openPerToken = plenty
        options.limits.openPerClient = plenty
        options.limits.actionPerToken = plenty
        return options
    }
}

@Suite("Input contract: media types, body and message limits, invisible text")
struct InputContractTests {
    static var roomy: APIHarness.Options { .roomy }

    /// JSON text for `object` (non-ASCII characters as they are).
    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    // MARK: - 415

    @Test("JSON routes refuse a body without Content-Type application/json (415); parameters and case are fine")
    func contentType() async throws {
        try await APIHarness.run(Self.roomy) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let draft = try await harness.createBottleID(creator)
            let opened = try await harness.createBottleID(creator)
            try await harness.open(opened, as: opener)
            let routes: [(HTTPRequest.Method, String, String, String)] = [
                (.post, "/api/v1/bottles", creator, #"{"text":"typed"}"#),
                (.patch, "/api/v1/bottles/\(draft)", creator, #"{"text":"typed again"}"#),
                (.post, "/api/v1/bottles/\(opened)/open", opener, #"{"password":"x"}"#),
                (.post, "/api/v1/bottles/\(opened)/messages", opener, #"{"text":"hi","language":"en"}"#),
                (.post, "/api/v1/presence-requests", opener, #"{"bottle":"\#(opened)"}"#),
            ]
            for (method, path, token, body) in routes {
                for type in [nil, "application/jsonx-evil", "text/plain", "application/json-patch+json", "application/x-www-form-urlencoded"] {
                    let reply = try await client.send(method, path, token: token, body: Array(body.utf8), contentType: type)
                    ErrorShape.expect(reply, status: 415, code: "unsupported_media_type")
                }
            }
            for type in ["application/json; charset=utf-8", "Application/JSON", "application/json ;charset=UTF-8"] {
                let reply = try await client.send(.post, "/api/v1/bottles", token: creator, body: Array(#"{"text":"typed"}"#.utf8), contentType: type)
                #expect(reply.code == 201, "\(type): \(reply)")
            }
            // A body-less open needs no media type.
            #expect(try await client.send(.post, "/api/v1/bottles/\(opened)/open", token: opener).code == 200)
            // Nothing of the refused requests was stored.
            let page = try await client.get("/api/v1/bottles/\(opened)/messages", token: opener)
            #expect(page.json["messages"].array?.isEmpty == true, "\(page)")
            #expect(try await harness.bottle(draft, as: creator).json["content"]["text"].string == "hello from the river")
        }
    }

    // MARK: - 413

    @Test("a chunked body over the route's limit is 413 with the limit, never a 500; under it, chunked works")
    func chunkedOversize() async throws {
        var options = Self.roomy
        options.limits.imageBodyBytes = 32 * 1024
        options.limits.audioBodyBytes = 32 * 1024
        let png = try Fixture.bytes("image-97x61.png")
        try await APIHarness.run(options) { harness in
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            let chat = try await harness.createBottleID(creator)
            try await harness.open(chat, as: opener)
            let big = Array(try Self.json(["text": String(repeating: "x", count: 70 * 1024)]).utf8)
            let cases: [(String, String, String, String, [UInt8], Int)] = [
                ("POST", "/api/v1/bottles", creator, "application/json", big, 64 * 1024),
                ("PATCH", "/api/v1/bottles/\(id)", creator, "application/json", big, 64 * 1024),
                ("POST", "/api/v1/bottles/\(chat)/messages", opener, "application/json", big, 64 * 1024),
                ("PUT", "/api/v1/bottles/\(id)/image", creator, "image/png", [UInt8](repeating: 0x89, count: 40 * 1024), 32 * 1024),
                ("PUT", "/api/v1/bottles/\(id)/whisper", creator, "audio/ogg", [UInt8](repeating: 0x4F, count: 40 * 1024), 32 * 1024),
                ("POST", "/api/v1/bottles/\(chat)/attachments", opener, "image/png", [UInt8](repeating: 0x89, count: 40 * 1024), 32 * 1024),
            ]
            for (method, path, token, type, body, limit) in cases {
                let reply = try await RawHTTP.chunked(port: harness.port, method, path, token: token, contentType: type, body: body)
                let error = ErrorShape.expect(reply, status: 413, code: "payload_too_large")
                #expect(error["details"]["limitBytes"].int == limit, "\(method) \(path): \(reply)")
            }
            let small = try await RawHTTP.chunked(port: harness.port, "PUT", "/api/v1/bottles/\(id)/image", token: creator,
                                                  contentType: "image/png", body: png, chunkBytes: 100)
            #expect(small.code == 200, "\(small)")
            #expect(harness.mediaFiles().count == 1, "only the accepted image was stored: \(harness.mediaFiles())")
            #expect(try await harness.client.get("/api/v1/box", token: creator).code == 200)
        }
    }

    // MARK: - WebSocket 1009

    /// A message of exactly `bytes` UTF-8 bytes the hub ignores.
    static func padded(_ bytes: Int) -> String {
        let head = #"{"type":"noise","pad":""#
        return head + String(repeating: "x", count: bytes - head.utf8.count - 2) + #""}"#
    }

    @Test("live sockets: 4 KiB passes, framed or fragmented; more closes the socket with 1009 (message too big)")
    func webSocketLimit() async throws {
        try await APIHarness.run(Self.roomy) { harness in
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: opener)
            #expect(Self.padded(4096).utf8.count == 4096)  // VisitorAPI.maximumInboundMessage

            // At the limit, in one frame and in four fragments: the socket stays and hears lines.
            let fine = try await harness.chatSocket(id, as: opener)
            #expect(await fine.first(type: "hello") != nil)
            fine.send(Self.padded(4096))
            fine.sendFragmented(Self.padded(4096), fragmentBytes: 1024)
            fine.send(#"{"type":"typing"}"#)
            let line = try await harness.client.post("/api/v1/bottles/\(id)/messages", token: opener, json: #"{"text":"still open","language":"en"}"#)
            #expect(line.code == 201)
            #expect(await fine.first(type: "message") { $0["message"]["text"].string == "still open" } != nil, "\(fine.messages)")
            #expect(!fine.isClosed, "closed at the limit: \(String(describing: fine.closeCode)) \(fine.failure ?? "")")

            // Over it: one frame of 4 097 or 16 000 bytes, 5 KiB in 1 KiB fragments, 1 MiB in 1 KiB fragments.
            let oversized: [(String, @Sendable (LiveSocket) -> Void)] = [
                ("4097 bytes", { $0.send(Self.padded(4097)) }),
                ("16000 bytes", { $0.send(Self.padded(16_000)) }),
                ("5 KiB in 1 KiB fragments", { $0.sendFragmented(Self.padded(5 * 1024), fragmentBytes: 1024) }),
                ("1 MiB in 1 KiB fragments", { $0.sendFragmented(Self.padded(1 << 20), fragmentBytes: 1024) }),
            ]
            for (what, send) in oversized {
                let socket = try await harness.chatSocket(id, as: opener)
                #expect(await socket.first(type: "hello") != nil)
                send(socket)
                #expect(await socket.waitClosed(timeout: .seconds(20)), "\(what): the socket stayed open")
                #expect(socket.closeCode == .messageTooLarge,
                        "\(what): closed with \(String(describing: socket.closeCode)) \(socket.failure ?? "")")
            }
            // The box socket has the same limit.
            let box = try await harness.boxSocket(as: opener)
            box.send(Self.padded(4097))
            #expect(await box.waitClosed(timeout: .seconds(20)), "box socket stayed open")
            #expect(box.closeCode == .messageTooLarge, "box: \(String(describing: box.closeCode)) \(box.failure ?? "")")

            // The first socket was not disturbed by the others.
            let after = try await harness.client.post("/api/v1/bottles/\(id)/messages", token: opener, json: #"{"text":"after","language":"en"}"#)
            #expect(after.code == 201)
            #expect(await fine.first(type: "message") { $0["message"]["text"].string == "after" } != nil)
            await fine.closeAndWait()
        }
    }

    // MARK: - Invisible text

    static let invisible = [
        "\u{200B}", "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}", "\u{202E}", "\u{202A}\u{202C}", "\u{2066}\u{2069}",
        "\u{E0041}\u{E0042}\u{E007F}", " \u{200B}\n\t\u{3164}", "\u{00AD}\u{180E}", "\u{FE0F}",
    ]

    @Test("bottle texts, hints, condition hints and chat lines that show nothing are 422")
    func invisibleRefused() async throws {
        try await APIHarness.run(Self.roomy) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let draft = try await harness.createBottleID(creator)
            let chat = try await harness.createBottleID(creator)
            try await harness.open(chat, as: opener)
            for text in Self.invisible {
                let shown = text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
                let attempts: [(HTTPRequest.Method, String, String, [String: Any], String)] = [
                    (.post, "/api/v1/bottles", creator, ["text": text], "text"),
                    (.post, "/api/v1/bottles", creator, ["text": "ok", "hint": text], "hint"),
                    (.post, "/api/v1/bottles", creator, ["text": "ok", "conditions": [["kind": "delay", "seconds": 60, "hint": text]]],
                     "conditions.delay.hint"),
                    (.patch, "/api/v1/bottles/\(draft)", creator, ["text": text], "text"),
                    (.patch, "/api/v1/bottles/\(draft)", creator, ["text": "ok", "hint": text], "hint"),
                    (.post, "/api/v1/bottles/\(chat)/messages", opener, ["text": text, "language": "en"], "text"),
                ]
                for (method, path, token, body, field) in attempts {
                    let reply = try await client.send(method, path, token: token, json: try Self.json(body))
                    let error = ErrorShape.expect(reply, status: 422, code: "invalid")
                    #expect(error["details"]["field"].string == field, "[\(shown)] \(method) \(path): \(reply)")
                }
            }
            #expect(try await client.get("/api/v1/bottles/\(chat)/messages", token: opener).json["messages"].array?.isEmpty == true)
            #expect(try await harness.bottle(draft, as: creator).json["content"]["text"].string == "hello from the river")
            let mine = try await client.get("/api/v1/my/bottles", token: creator)
            #expect(mine.json["bottles"].array?.count == 2, "nothing more was stored: \(mine)")
        }
    }

    @Test("direction overrides, embeddings, isolates and tag characters are removed before storing; the rest stays")
    func controlsRemoved() async throws {
        try await APIHarness.run(Self.roomy) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let created = try await client.post("/api/v1/bottles", token: creator, json: try Self.json([
                "text": "gnp.\u{202E}exe\u{202C} left\u{2067}right\u{2069}\u{E0001}\u{E0065}\u{E006E}",
                "hint": "by the \u{202D}bridge",
                "conditions": [["kind": "delay", "seconds": 60, "hint": "wait\u{2066} a minute\u{2069}"]],
            ]))
            #expect(created.code == 201, "\(created)")
            #expect(created.json["content"]["text"].string == "gnp.exe leftright")
            #expect(created.json["hint"].string == "by the bridge")
            let id = try #require(created.json["id"].string)
            let stored = try await harness.bottle(id, as: creator)
            #expect(stored.json["content"]["text"].string == "gnp.exe leftright")
            #expect(stored.json["conditions"].array?.first { $0["kind"].string == "delay" }?["hint"].string == "wait a minute")

            let chat = try await harness.createBottleID(creator)
            try await harness.open(chat, as: opener)
            let socket = try await harness.chatSocket(chat, as: opener)
            #expect(await socket.first(type: "hello") != nil)
            // Joiners, emoji sequences, combining marks and bidi *marks* are text: they stay.
            let kept = "👩‍👩‍👧 café ש\u{200F}1"
            let line = try await client.post("/api/v1/bottles/\(chat)/messages", token: opener,
                                             json: try Self.json(["text": "a\u{202E}b \(kept)", "language": "en"]))
            #expect(line.code == 201, "\(line)")
            #expect(line.json["text"].string == "ab \(kept)")
            #expect(await socket.first(type: "message")?["message"]["text"].string == "ab \(kept)")
            #expect(try await client.get("/api/v1/bottles/\(chat)/messages", token: opener).json["messages"][0]["text"].string == "ab \(kept)")
            await socket.closeAndWait()
        }
    }
}
