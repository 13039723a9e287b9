import DriftCore
import Foundation
import HTTPTypes
import Testing

/// Unread counts in My bottles and Watching, and the creator's notification switches.
@Suite("Unread counts and notification choices")
struct ReadsAndNotificationsTests {
    @Test("lines since the visitor last looked, their own not counted; POST …/read clears them; only for chats they see")
    func unreadCounts() async throws {
        let document = try OpenAPIDocument.load()
        // The chat must outlive the test: the visitor opened over HTTP and holds no live
        // socket, so the harness's 2 s countdown would end it on a loaded machine.
        var options = APIHarness.Options()
        options.survival = SurvivalPolicy(lifespan: 3600, countdown: 600)
        try await APIHarness.run(options) { harness in
            let (creator, visitor, stranger) = (try await harness.newVisitor(), try await harness.newVisitor(), try await harness.newVisitor())
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: visitor)
            for text in ["one", "two"] {
                let posted = try await harness.client.post("/api/v1/bottles/\(id)/messages", token: visitor,
                                                           json: #"{"text":"\#(text)","language":"en"}"#)
                #expect(posted.code == 201, "\(posted)")
            }
            let mine = try await harness.client.get("/api/v1/my/bottles", token: creator)
            document.expect(mine, .get, "/api/v1/my/bottles", status: 200)
            #expect(mine.json["bottles"][0]["unreadLines"].number == 2, "\(mine)")
            #expect(mine.json["bottles"][0]["notifications"]["firstOpen"].bool == true, "\(mine)")

            // The visitor's own lines are not unread for them.
            #expect(try await harness.client.post("/api/v1/bottles/\(id)/read", token: stranger, json: "{}").code == 403)
            let read = try await harness.client.post("/api/v1/bottles/\(id)/read", token: creator, json: "{}")
            document.expect(read, .post, "/api/v1/bottles/{id}/read", status: 204)
            let after = try await harness.client.get("/api/v1/my/bottles", token: creator)
            #expect(after.json["bottles"][0]["unreadLines"].number == 0, "\(after)")
            let unknown = try await harness.client.post("/api/v1/bottles/\(UUID())/read", token: creator, json: "{}")
            document.expect(unknown, .post, "/api/v1/bottles/{id}/read", status: 404)
        }
    }

    @Test("the creator reads and sets which notices they get; nobody else may; a bad body is refused")
    func notifications() async throws {
        let document = try OpenAPIDocument.load()
        try await APIHarness.run { harness in
            let (creator, other) = (try await harness.newVisitor(), try await harness.newVisitor())
            let id = try await harness.createBottleID(creator)
            let path = "/api/v1/bottles/\(id)/notifications"
            let initial = try await harness.client.get(path, token: creator)
            document.expect(initial, .get, "/api/v1/bottles/{id}/notifications", status: 200)
            #expect(initial.json["firstOpen"].bool == true && initial.json["participantJoined"].bool == true
                    && initial.json["linesWhileAway"].bool == true, "\(initial)")
            let set = try await harness.client.send(.put, path, token: creator,
                                                    json: #"{"firstOpen":true,"participantJoined":false,"linesWhileAway":false}"#)
            document.expect(set, .put, "/api/v1/bottles/{id}/notifications", status: 200)
            let now = try await harness.client.get(path, token: creator)
            #expect(now.json["participantJoined"].bool == false && now.json["linesWhileAway"].bool == false, "\(now)")
            let foreign = try await harness.client.get(path, token: other)
            document.expect(foreign, .get, "/api/v1/bottles/{id}/notifications", status: 403)
            let bad = try await harness.client.send(.put, path, token: creator, json: #"{"firstOpen":"yes"}"#)
            document.expect(bad, .put, "/api/v1/bottles/{id}/notifications", status: 400)
        }
    }
}

@Suite("Share codes as people type them")
struct TypedShareCodeTests {
    @Test("a share code typed with a space, in lower case or with a dash finds the bottle")
    func typedCodes() async throws {
        try await APIHarness.run { harness in
            let creator = try await harness.newVisitor()
            let created = try await harness.createBottle(creator)
            let code = try #require(created["shareCode"].string)
            let (head, tail) = (code.prefix(4), code.suffix(4))
            for typed in ["\(head)%20\(tail)", "\(head)-\(tail)".lowercased(), "%20\(code)%20"] {
                let found = try await harness.client.get("/api/v1/bottles/\(typed)", token: creator)
                #expect(found.code == 200 && found.json["shareCode"].string == code, "\(typed): \(found)")
            }
        }
    }
}
