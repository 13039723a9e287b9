import DriftCore
import DriftDaemon
import Foundation
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
}
