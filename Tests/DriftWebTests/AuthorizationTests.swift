import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

@Suite("Authorisation: tokens, locked content, other creators, unopened chats")
struct AuthorizationTests {
    /// Every protected operation, with `{id}` and `{message}` filled in.
    static func protectedRoutes(bottle: String, message: String) -> [(HTTPRequest.Method, String)] {
        [
            (.get, "/api/v1/box"), (.get, "/api/v1/bottles"), (.post, "/api/v1/bottles"),
            (.get, "/api/v1/bottles/\(bottle)"), (.patch, "/api/v1/bottles/\(bottle)"), (.delete, "/api/v1/bottles/\(bottle)"),
            (.get, "/api/v1/bottles/\(bottle)/image"), (.put, "/api/v1/bottles/\(bottle)/image"), (.delete, "/api/v1/bottles/\(bottle)/image"),
            (.get, "/api/v1/bottles/\(bottle)/whisper"), (.put, "/api/v1/bottles/\(bottle)/whisper"),
            (.delete, "/api/v1/bottles/\(bottle)/whisper"), (.post, "/api/v1/bottles/\(bottle)/open"),
            (.get, "/api/v1/bottles/\(bottle)/messages"), (.post, "/api/v1/bottles/\(bottle)/messages"),
            (.post, "/api/v1/bottles/\(bottle)/attachments"), (.get, "/api/v1/bottles/\(bottle)/messages/\(message)/attachment"),
            (.post, "/api/v1/bottles/\(bottle)/keep-alive"), (.put, "/api/v1/bottles/\(bottle)/watch"),
            (.delete, "/api/v1/bottles/\(bottle)/watch"), (.post, "/api/v1/presence-requests"),
            (.get, "/api/v1/my/bottles"), (.get, "/api/v1/my/watches"),
        ]
    }

    @Test("no token, a malformed one or an unknown one: 401 on every protected route and live socket")
    func unauthorised() async throws {
        try await APIHarness.run { harness in
            let creator = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            let unknown = DeviceToken.generate().encoded
            let routes = Self.protectedRoutes(bottle: id, message: MessageID.make(at: Date()).description)
            let headers: [(String, HTTPFields)] = [
                ("none", [:]),
                ("malformed", [.authorization: "Bearer not-a-token"]),
                ("wrong scheme", [.authorization: "Basic \(creator)"]),
                ("unknown", [.authorization: "Bearer \(unknown)"]),
            ]
            for (label, fields) in headers {
                for (method, path) in routes {
                    let body: [UInt8]? = method == .post || method == .patch || method == .put ? Array("{}".utf8) : nil
                    let reply = try await harness.client.send(method, path, body: body, contentType: body == nil ? nil : "application/json",
                                                              headers: fields)
                    ErrorShape.expect(reply, status: 401, code: "unauthorized")
                    if reply.code != 401 { Issue.record("\(label) token: \(method) \(path)") }
                }
            }
            for token in [nil, "not-a-token", unknown] {
                for path in ["/api/v1/live", "/api/v1/bottles/\(id)/live"] {
                    await #expect(throws: LiveSocket.Refused.self, "\(path) with \(token ?? "no token")") {
                        let socket = try await LiveSocket.connect(port: harness.port, path: path, token: token)
                        await socket.closeAndWait()
                    }
                }
            }
            // A token in the query string is for live sockets only, not for HTTP routes.
            ErrorShape.expect(try await harness.client.get("/api/v1/bottles/\(id)?token=\(creator)"), status: 401, code: "unauthorized")
            // The bottle is untouched.
            let bottle = try await harness.bottle(id, as: creator)
            #expect(bottle.code == 200 && bottle.json["content"]["text"].string == "hello from the river")
        }
    }

    @Test("a locked bottle shows no content to visitors; its image and whisper are 403 for them")
    func lockedContent() async throws {
        let png = try Fixture.bytes("image-97x61.png")
        let webm = try Fixture.bytes("whisper-3s.webm")
        try await APIHarness.run { harness in
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator, json: #"{"text":"secret","conditions":[{"kind":"delay","seconds":86400}]}"#)
            #expect(try await harness.client.put("/api/v1/bottles/\(id)/image", token: creator, bytes: png, contentType: "image/png").code == 200)
            #expect(try await harness.client.put("/api/v1/bottles/\(id)/whisper", token: creator, bytes: webm, contentType: "audio/webm").code == 200)

            let seen = try await harness.bottle(id, as: visitor)
            #expect(seen.code == 200)
            #expect(seen.json["state"].string == "locked")
            #expect(seen.json["content"].isMissing || seen.json["content"].isNull, "content leaked: \(seen)")
            #expect(seen.json["draft"].isMissing || seen.json["draft"].isNull, "draft leaked: \(seen)")
            #expect(!seen.text.contains("secret"), "text leaked: \(seen)")
            #expect(seen.json["hasImage"].bool == true)
            for path in ["image", "whisper"] {
                let reply = try await harness.client.get("/api/v1/bottles/\(id)/\(path)", token: visitor)
                ErrorShape.expect(reply, status: 403, code: "forbidden")
            }
            // A locked bottle does not open.
            let open = try await harness.client.post("/api/v1/bottles/\(id)/open", token: visitor, json: "{}")
            ErrorShape.expect(open, status: 403, code: "locked")
            // The creator sees it all.
            let own = try await harness.bottle(id, as: creator)
            #expect(own.json["content"]["text"].string == "secret")
            #expect(try await harness.client.get("/api/v1/bottles/\(id)/image", token: creator).body == png)
        }
    }

    @Test("another creator's bottle: change, retire and media uploads are 403 and change nothing")
    func otherCreator() async throws {
        let png = try Fixture.bytes("image-97x61.png")
        let jpeg = try Fixture.bytes("baseline-97x61.jpg")
        let webm = try Fixture.bytes("whisper-3s.webm")
        try await APIHarness.run { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let intruder = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            #expect(try await client.put("/api/v1/bottles/\(id)/image", token: creator, bytes: png, contentType: "image/png").code == 200)
            let before = try await harness.bottle(id, as: creator).json
            let filesBefore = harness.mediaFiles()

            let attempts: [HTTPReply] = [
                try await client.send(.patch, "/api/v1/bottles/\(id)", token: intruder, json: #"{"text":"mine now"}"#),
                try await client.delete("/api/v1/bottles/\(id)", token: intruder),
                try await client.put("/api/v1/bottles/\(id)/image", token: intruder, bytes: jpeg, contentType: "image/jpeg"),
                try await client.delete("/api/v1/bottles/\(id)/image", token: intruder),
                try await client.put("/api/v1/bottles/\(id)/whisper", token: intruder, bytes: webm, contentType: "audio/webm"),
                try await client.delete("/api/v1/bottles/\(id)/whisper", token: intruder),
            ]
            for reply in attempts { ErrorShape.expect(reply, status: 403, code: "forbidden") }
            let after = try await harness.bottle(id, as: creator).json
            #expect(after == before)
            #expect(harness.mediaFiles() == filesBefore)
            #expect(try await client.get("/api/v1/bottles/\(id)/image", token: creator).body == png)
        }
    }

    @Test("an unopened bottle's chat and media are refused; after opening all is allowed")
    func unopenedChat() async throws {
        let png = try Fixture.bytes("image-97x61.png")
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let first = try await harness.newVisitor()
            let stranger = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            #expect(try await client.put("/api/v1/bottles/\(id)/image", token: creator, bytes: png, contentType: "image/png").code == 200)
            try await harness.open(id, as: first)
            let line = try await client.post("/api/v1/bottles/\(id)/messages", token: first, json: #"{"text":"first!","language":"en"}"#)
            #expect(line.code == 201)
            let upload = try await client.send(.post, "/api/v1/bottles/\(id)/attachments", token: first, body: png, contentType: "image/png")
            let attachment = try #require(upload.json["attachment"].string)
            #expect(try await client.post("/api/v1/bottles/\(id)/messages", token: first,
                                          json: #"{"text":"pic","language":"en","attachment":"\#(attachment)"}"#).code == 201)
            let attachmentPath = "/api/v1/bottles/\(id)/messages/\(attachment)/attachment"

            // The stranger sees the bottle (it is active) but not its content or chat.
            let seen = try await harness.bottle(id, as: stranger)
            #expect(seen.code == 200)
            #expect(seen.json["hasOpened"].bool == false)
            #expect(!seen.json["content"].exists, "content leaked: \(seen)")
            #expect(!seen.json["chat"].exists, "chat leaked: \(seen)")
            let refused: [HTTPReply] = [
                try await client.get("/api/v1/bottles/\(id)/messages", token: stranger),
                try await client.post("/api/v1/bottles/\(id)/messages", token: stranger, json: #"{"text":"let me in","language":"en"}"#),
                try await client.send(.post, "/api/v1/bottles/\(id)/attachments", token: stranger, body: png, contentType: "image/png"),
                try await client.get(attachmentPath, token: stranger),
                try await client.get("/api/v1/bottles/\(id)/image", token: stranger),
                try await client.post("/api/v1/bottles/\(id)/keep-alive", token: stranger, json: "{}"),
            ]
            for reply in refused { ErrorShape.expect(reply, status: 403, code: "forbidden") }
            await #expect(throws: LiveSocket.Refused.self) {
                let socket = try await harness.chatSocket(id, as: stranger)
                await socket.closeAndWait()
            }
            let lines = try await client.get("/api/v1/bottles/\(id)/messages", token: first)
            #expect(lines.json["messages"].array?.count == 2, "the refused line was not stored: \(lines)")

            // After opening, everything is allowed.
            try await harness.open(id, as: stranger)
            #expect(try await client.get("/api/v1/bottles/\(id)/messages", token: stranger).code == 200)
            #expect(try await client.post("/api/v1/bottles/\(id)/messages", token: stranger, json: #"{"text":"hello","language":"en"}"#).code == 201)
            #expect(try await client.send(.post, "/api/v1/bottles/\(id)/attachments", token: stranger, body: png, contentType: "image/png").code == 201)
            #expect(try await client.get(attachmentPath, token: stranger).body == png)
            #expect(try await client.get("/api/v1/bottles/\(id)/image", token: stranger).body == png)
            let socket = try await harness.chatSocket(id, as: stranger)
            #expect(await socket.first(type: "hello") != nil)
            await socket.closeAndWait()
        }
    }

    @Test("listings: others' locked bottles are teasers (hint and conditions, no content); nothing lists content the caller may not see")
    func listings() async throws {
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let stranger = try await harness.newVisitor()
            let locked = try await harness.createBottleID(creator, json: #"{"text":"locked secret","conditions":[{"kind":"delay","seconds":86400}]}"#)
            let active = try await harness.createBottleID(creator, json: #"{"text":"active secret"}"#)
            try await harness.open(active, as: opener)

            let seen = try await client.get("/api/v1/bottles", token: stranger)
            let ids = Set(seen.json["bottles"].array?.compactMap { $0["id"].string } ?? [])
            #expect(ids.contains(locked), "another's locked bottle is listed as a teaser")
            let teaser = seen.json["bottles"].array?.first { $0["id"].string == locked }
            #expect(teaser?["content"].string == nil && teaser?["conditions"].array?.isEmpty == false, "\(seen)")
            #expect(ids.contains(active), "a live chat one may join is listed")
            #expect(!seen.text.contains("secret"), "content listed to a stranger: \(seen)")
            #expect(try await client.get("/api/v1/my/bottles", token: stranger).json["bottles"].array?.isEmpty == true)

            #expect(try await client.send(.put, "/api/v1/bottles/\(locked)/watch", token: stranger).code == 200)
            let watched = try await client.get("/api/v1/bottles", token: stranger)
            #expect(watched.json["bottles"].array?.contains { $0["id"].string == locked && $0["isWatched"].bool == true } == true)
            #expect(!watched.text.contains("secret"))

            for token in [creator, opener] {
                let list = try await client.get("/api/v1/bottles", token: token)
                #expect(list.json["bottles"].array?.contains { $0["id"].string == active } == true, "\(list)")
            }
            let own = try await client.get("/api/v1/my/bottles", token: creator)
            #expect(Set(own.json["bottles"].array?.compactMap { $0["id"].string } ?? []) == [locked, active])
        }
    }

    @Test("a chat attachment is reachable only under its own bottle")
    func attachmentOfAnotherBottle() async throws {
        let png = try Fixture.bytes("image-97x61.png")
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let first = try await harness.createBottleID(creator)
            let second = try await harness.createBottleID(creator)
            try await harness.open(first, as: opener)
            try await harness.open(second, as: opener)
            let upload = try await client.send(.post, "/api/v1/bottles/\(first)/attachments", token: opener, body: png, contentType: "image/png")
            let staged = try #require(upload.json["attachment"].string)
            // Staged under the first bottle, it cannot be named in the second.
            ErrorShape.expect(try await client.post("/api/v1/bottles/\(second)/messages", token: opener,
                                                    json: #"{"text":"x","language":"en","attachment":"\#(staged)"}"#), status: 422, code: "invalid")
            #expect(try await client.post("/api/v1/bottles/\(first)/messages", token: opener,
                                          json: #"{"text":"x","language":"en","attachment":"\#(staged)"}"#).code == 201)
            ErrorShape.expect(try await client.get("/api/v1/bottles/\(second)/messages/\(staged)/attachment", token: opener),
                              status: 404, code: "not_found")
            #expect(try await client.get("/api/v1/bottles/\(first)/messages/\(staged)/attachment", token: opener).body == png)
        }
    }
}
