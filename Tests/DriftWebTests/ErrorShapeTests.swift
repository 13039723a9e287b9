import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

@Suite("Error shape: one JSON shape, documented statuses, no internals")
struct ErrorShapeTests {
    @Test("each kind of refusal has the error shape and is a status the document lists for that route")
    func everyError() async throws {
        let document = try OpenAPIDocument.load()
        var options = APIHarness.Options(presenceGrace: 60)
        options.limits.postPerToken = RateLimiter.Rule(burst: 1, perHour: 1)
        try await APIHarness.run(options) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            let locked = try await harness.createBottleID(creator, json: #"{"text":"later","conditions":[{"kind":"delay","seconds":86400}]}"#)
            let oneShot = try await harness.createBottleID(creator, json: #"{"text":"once","oneShot":true}"#)
            try await harness.open(id, as: visitor)
            try await harness.open(oneShot, as: visitor)

            typealias Case = (HTTPRequest.Method, String, String, HTTPReply, Int, String)
            let cases: [Case] = [
                (.post, "/api/v1/bottles", "malformed", try await client.post("/api/v1/bottles", token: creator, json: "{"), 400, "bad_request"),
                (.get, "/api/v1/box", "no token", try await client.get("/api/v1/box"), 401, "unauthorized"),
                (.patch, "/api/v1/bottles/{id}", "not the creator",
                 try await client.send(.patch, "/api/v1/bottles/\(locked)", token: visitor, json: #"{"text":"x"}"#), 403, "forbidden"),
                (.post, "/api/v1/bottles/{id}/open", "locked", try await client.post("/api/v1/bottles/\(locked)/open", token: visitor, json: "{}"),
                 403, "locked"),
                (.get, "/api/v1/bottles/{id}", "unknown bottle",
                 try await client.get("/api/v1/bottles/\(BottleID.make(at: Date()))", token: visitor), 404, "not_found"),
                (.patch, "/api/v1/bottles/{id}", "opened",
                 try await client.send(.patch, "/api/v1/bottles/\(id)", token: creator, json: #"{"text":"x"}"#), 409, "conflict"),
                (.delete, "/api/v1/bottles/{id}", "opened", try await client.delete("/api/v1/bottles/\(id)", token: creator), 409, "conflict"),
                (.post, "/api/v1/bottles/{id}/keep-alive", "one-shot",
                 try await client.post("/api/v1/bottles/\(oneShot)/keep-alive", token: visitor, json: "{}"), 409, "conflict"),
                (.post, "/api/v1/bottles", "too large",
                 try await client.post("/api/v1/bottles", token: creator, json: #"{"text":""# + String(repeating: "x", count: 65 * 1024) + #""}"#),
                 413, "payload_too_large"),
                (.post, "/api/v1/bottles", "text/plain",
                 try await client.send(.post, "/api/v1/bottles", token: creator, body: Array(#"{"text":"x"}"#.utf8), contentType: "text/plain"),
                 415, "unsupported_media_type"),
                (.post, "/api/v1/bottles", "invalid", try await client.post("/api/v1/bottles", token: creator, json: #"{"text":"x","lifetimeSeconds":-5}"#),
                 422, "invalid"),
                (.post, "/api/v1/bottles/{id}/messages", "first line",
                 try await client.post("/api/v1/bottles/\(id)/messages", token: visitor, json: #"{"text":"one","language":"en"}"#), 201, ""),
                (.post, "/api/v1/bottles/{id}/messages", "rate limited",
                 try await client.post("/api/v1/bottles/\(id)/messages", token: visitor, json: #"{"text":"two","language":"en"}"#), 429, "rate_limited"),
            ]
            for (method, path, label, reply, status, code) in cases {
                if code.isEmpty {
                    #expect(reply.code == status, "\(label): \(reply)")
                    continue
                }
                let error = ErrorShape.expect(reply, status: status, code: code)
                #expect(document.response(method, path, status: status) != nil, "\(method) \(path) does not document \(status) (\(label))")
                #expect(reply.headers[.cacheControl] == "no-store", "\(label): \(reply.headers)")
                if code == "invalid" {
                    #expect(error["details"]["field"].string != nil && error["details"]["problem"].string != nil, "\(label): \(error)")
                }
                if code == "locked" {
                    #expect(error["details"]["conditions"].array?.isEmpty == false, "\(label): \(error)")
                }
            }
            // Unknown routes and methods answer in the same shape.
            ErrorShape.expect(try await client.get("/api/v1/no/such/route", token: visitor), status: 404, code: "not_found")
            let wrongMethod = try await client.send(.put, "/api/v1/box", token: visitor, body: [], contentType: "application/json")
            #expect(wrongMethod.code == 405 || wrongMethod.code == 404, "\(wrongMethod)")
            ErrorShape.expect(wrongMethod, status: wrongMethod.code, code: wrongMethod.code == 405 ? "method_not_allowed" : "not_found")
            ErrorShape.expect(try await client.get("/no-such-page.html"), status: 404, code: "not_found")
        }
    }
}
