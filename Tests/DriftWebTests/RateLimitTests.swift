import DriftCore
import DriftDaemon
import Foundation
import DriftSystem
import HTTPTypes
import Testing

@Suite("Rate limits: 429 rate_limited with Retry-After")
struct RateLimitTests {
    static let tight = RateLimiter.Rule(burst: 2, perHour: 1)

    /// Checks a 429 answer and its Retry-After (about an hour at one per hour).
    static func expectLimited(_ reply: HTTPReply, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = ErrorShape.expect(reply, status: 429, code: "rate_limited", sourceLocation: sourceLocation)
        let retry = reply.headers[.retryAfter].flatMap(Int.init)
        #expect(retry != nil && retry! >= 1 && retry! <= 3600, "Retry-After: \(reply.headers)", sourceLocation: sourceLocation)
        #expect(error["details"]["retryAfterSeconds"].int == retry, sourceLocation: sourceLocation)
    }

    @Test("creating bottles beyond the per-token limit")
    func creating() async throws {
        var options = APIHarness.Options()
        options.limits.createPerToken = Self.tight
        try await APIHarness.run(options) { harness in
            let creator = try await harness.newVisitor()
            try await harness.createBottle(creator)
            try await harness.createBottle(creator)
            Self.expectLimited(try await harness.client.post("/api/v1/bottles", token: creator, json: #"{"text":"three"}"#))
            #expect(try await harness.client.get("/api/v1/my/bottles", token: creator).json["bottles"].array?.count == 2)
            // Another token is not limited by this one.
            try await harness.createBottle(try await harness.newVisitor())
        }
    }

    @Test("creating beyond the per-client limit, across tokens")
    func creatingPerClient() async throws {
        var options = APIHarness.Options()
        options.limits.createPerClient = RateLimiter.Rule(burst: 3, perHour: 1)
        try await APIHarness.run(options) { harness in
            let first = try await harness.newVisitor()
            let second = try await harness.newVisitor()
            try await harness.createBottle(first)
            try await harness.createBottle(first)
            try await harness.createBottle(second)
            Self.expectLimited(try await harness.client.post("/api/v1/bottles", token: second, json: #"{"text":"four"}"#))
        }
    }

    @Test("opening beyond the per-token limit")
    func opening() async throws {
        var options = APIHarness.Options(presenceGrace: 60)
        options.limits.openPerToken = Self.tight
        try await APIHarness.run(options) { harness in
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let ids = [try await harness.createBottleID(creator), try await harness.createBottleID(creator),
                       try await harness.createBottleID(creator)]
            try await harness.open(ids[0], as: visitor)
            try await harness.open(ids[1], as: visitor)
            Self.expectLimited(try await harness.client.post("/api/v1/bottles/\(ids[2])/open", token: visitor, json: "{}"))
            let third = try await harness.bottle(ids[2], as: visitor)
            #expect(third.json["hasOpened"].bool == false)
            #expect(third.json["state"].string == "openable")
        }
    }

    @Test("posting chat lines beyond the per-token limit")
    func posting() async throws {
        var options = APIHarness.Options(presenceGrace: 60)
        options.limits.postPerToken = Self.tight
        try await APIHarness.run(options) { harness in
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: visitor)
            for text in ["one", "two"] {
                #expect(try await harness.client.post("/api/v1/bottles/\(id)/messages", token: visitor,
                                                      json: #"{"text":"\#(text)","language":"en"}"#).code == 201)
            }
            Self.expectLimited(try await harness.client.post("/api/v1/bottles/\(id)/messages", token: visitor,
                                                             json: #"{"text":"three","language":"en"}"#))
            let page = try await harness.client.get("/api/v1/bottles/\(id)/messages", token: visitor)
            #expect(page.json["messages"].array?.count == 2)
        }
    }

    @Test("new device tokens beyond the per-client limit")
    func newTokens() async throws {
        var options = APIHarness.Options()
        options.limits.newVisitor = Self.tight
        try await APIHarness.run(options) { harness in
            _ = try await harness.newVisitor()
            _ = try await harness.newVisitor()
            Self.expectLimited(try await harness.client.send(.post, "/api/v1/visitors"))
        }
    }

    /// The trust audit: presence requests were limited per token only, so one phone minting
    /// tokens could hold all five press counts (each for a minute, renewed by asking again)
    /// and keep everyone at the box waiting.
    @Test("presence requests beyond the per-address limit, across tokens; another address still gets a count")
    func presencePerClient() async throws {
        var options = APIHarness.Options()
        options.limits.presencePerClient = RateLimiter.Rule(burst: 2, perHour: 1)
        try await APIHarness.run(options) { harness in
            let creator = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator, json: #"{"text":"here","conditions":[{"kind":"presence"}]}"#)
            let body = "{\"bottle\":\"\(id)\"}"
            for _ in 0..<2 {
                let asked = try await harness.client.post("/api/v1/presence-requests", token: try await harness.newVisitor(), json: body)
                #expect(asked.code == 202, "\(asked)")
            }
            Self.expectLimited(try await harness.client.post("/api/v1/presence-requests", token: try await harness.newVisitor(), json: body))
            // A visitor on another phone (address) is not held up by the first phone's tokens.
            let honest = try await harness.newVisitor()
            let request = Array(("POST /api/v1/presence-requests HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(honest)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)").utf8)
            let socket = try await DoorTests.connect(harness.port, from: "127.0.0.7")
            defer { try? socket.close() }
            try UnixSocket.sendAll(socket, request)
            let answer = try await DoorTests.drain(socket)
            #expect(answer.text.hasPrefix("HTTP/1.1 202 "), "\(answer.text.prefix(300))")
        }
    }
}
