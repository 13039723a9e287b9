import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

@Suite("Chat: lines, pages, attachments, live sockets, dying and Keep Alive")
struct ChatTests {
    static var roomyLimits: APIHarness.Options {
        var options = APIHarness.Options(presenceGrace: 60)
        options.limits.postPerToken = RateLimiter.Rule(burst: 500, perHour: 100_000)
        options.limits.postPerClient = RateLimiter.Rule(burst: 500, perHour: 100_000)
        return options
    }

    @Test("more than 50 lines page newest first with an older cursor")
    func paging() async throws {
        try await APIHarness.run(Self.roomyLimits) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: opener)
            let total = 57
            for index in 0..<total {
                let reply = try await client.post("/api/v1/bottles/\(id)/messages", token: opener, json: #"{"text":"line \#(index)","language":"en"}"#)
                try #require(reply.code == 201, "line \(index): \(reply)")
            }
            let first = try await client.get("/api/v1/bottles/\(id)/messages", token: opener)
            let firstLines = try #require(first.json["messages"].array)
            #expect(firstLines.count == 50)
            let older = try #require(first.json["older"].string, "no older cursor: \(first.text.prefix(200))")
            let escaped = older.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? older
            let second = try await client.get("/api/v1/bottles/\(id)/messages?before=\(escaped)", token: opener)
            #expect(second.code == 200, "\(second)")
            let secondLines = try #require(second.json["messages"].array)
            #expect(secondLines.count == total - 50)
            #expect(!second.json["older"].exists, "no more pages: \(second.json["older"])")
            // The first page holds the newest 50 lines, the second the rest; none twice.
            let firstTexts = firstLines.compactMap { $0["text"].string }
            let secondTexts = secondLines.compactMap { $0["text"].string }
            #expect(Set(firstTexts) == Set((total - 50..<total).map { "line \($0)" }))
            #expect(Set(secondTexts) == Set((0..<total - 50).map { "line \($0)" }))
            #expect(firstTexts.first == "line \(total - 1)", "newest first: \(firstTexts.prefix(3))")
            let texts = firstTexts + secondTexts
            #expect(texts == (0..<total).reversed().map { "line \($0)" })
            let sent = (firstLines + secondLines).compactMap { $0["sentAt"].string }
            #expect(sent == sent.sorted(by: >))
            // The creator reads too; a smaller page size is honoured.
            let small = try await client.get("/api/v1/bottles/\(id)/messages?limit=5", token: creator)
            #expect(small.json["messages"].array?.count == 5)
            ErrorShape.expect(try await client.get("/api/v1/bottles/\(id)/messages?limit=500", token: opener), status: 400, code: "bad_request")
            ErrorShape.expect(try await client.get("/api/v1/bottles/\(id)/messages?before=garbage", token: opener), status: 400, code: "bad_request")
            let view = try await harness.bottle(id, as: opener)
            #expect(view.json["chat"]["lines"].int == total)
        }
    }

    @Test("an image and an audio attachment: upload, name in a message, read back")
    func attachments() async throws {
        let png = try Fixture.bytes("image-97x61.png")
        let ogg = try Fixture.bytes("whisper-3s.opus.ogg")
        try await APIHarness.run(Self.roomyLimits) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: opener)
            for (bytes, type, kind) in [(png, "image/png", "image"), (ogg, "audio/ogg", "audio")] {
                let upload = try await client.send(.post, "/api/v1/bottles/\(id)/attachments", token: opener, body: bytes, contentType: type)
                #expect(upload.code == 201, "\(upload)")
                #expect(upload.json["media"]["contentType"].string == type)
                let staged = try #require(upload.json["attachment"].string)
                let message = try await client.post("/api/v1/bottles/\(id)/messages", token: opener,
                                                    json: #"{"text":"see","language":"en","attachment":"\#(staged)"}"#)
                #expect(message.code == 201, "\(message)")
                #expect(message.json["id"].string == staged)
                #expect(message.json["attachment"]["kind"].string == kind)
                let url = try #require(message.json["attachment"]["url"].string)
                let file = try await client.get(url, token: opener)
                #expect(file.code == 200 && file.contentType == type)
                #expect(file.body == bytes)
                #expect(try await client.get(url, token: creator).body == bytes, "the creator reads attachments")
                // An upload is taken once.
                ErrorShape.expect(try await client.post("/api/v1/bottles/\(id)/messages", token: opener,
                                                        json: #"{"text":"again","language":"en","attachment":"\#(staged)"}"#),
                                  status: 422, code: "invalid")
            }
        }
    }

    @Test("live: hello, presence join and leave, lines on every socket, typing, then dying and erasure")
    func live() async throws {
        let png = try Fixture.bytes("image-97x61.png")
        try await APIHarness.run(Self.roomyLimits) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let bob = try await harness.newVisitor()
            let carol = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            #expect(try await client.put("/api/v1/bottles/\(id)/image", token: creator, bytes: png, contentType: "image/png").code == 200)
            try await harness.open(id, as: bob)
            try await harness.open(id, as: carol)

            let bobSocket = try await harness.chatSocket(id, as: bob)
            let bobHello = try #require(await bobSocket.first(type: "hello"))
            #expect(bobHello["me"]["isMe"].bool == true)
            let bobID = try #require(bobHello["me"]["id"].string)
            #expect(bobHello["present"].array?.compactMap { $0["id"].string }.contains(bobID) == true, "\(bobHello)")

            let carolSocket = try await harness.chatSocket(id, as: carol)
            let carolHello = try #require(await carolSocket.first(type: "hello"))
            let carolID = try #require(carolHello["me"]["id"].string)
            #expect(carolID != bobID)
            #expect(Set(carolHello["present"].array?.compactMap { $0["id"].string } ?? []) == [bobID, carolID], "\(carolHello)")
            let join = await bobSocket.first(type: "presence") { $0["event"].string == "join" }
            #expect(join?["participant"]["id"].string == carolID)
            #expect(join?["participant"]["isMe"].bool == false)

            let view = try await harness.bottle(id, as: bob)
            #expect(Set(view.json["chat"]["present"].array?.compactMap { $0["id"].string } ?? []) == [bobID, carolID])

            let posted = try await client.post("/api/v1/bottles/\(id)/messages", token: bob, json: #"{"text":"over the wire","language":"en"}"#)
            #expect(posted.code == 201)
            for (socket, isBob) in [(bobSocket, true), (carolSocket, false)] {
                let line = await socket.first(type: "message") { $0["message"]["text"].string == "over the wire" }
                #expect(line != nil, "line missing on \(isBob ? "bob" : "carol")'s socket")
                #expect(line?["message"]["participant"]["isMe"].bool == isBob)
            }

            carolSocket.send(#"{"type":"typing"}"#)
            let typing = await bobSocket.first(type: "typing") { $0["participants"].array?.isEmpty == false }
            #expect(typing?["participants"][0]["id"].string == carolID)
            #expect(carolSocket.messages.allSatisfy { $0["type"].string != "typing" || $0["participants"].array?.isEmpty != false },
                    "typing is not echoed to the typist")
            carolSocket.send("not json at all")
            carolSocket.send(#"{"type":"shout"}"#)

            await carolSocket.closeAndWait()
            let leave = await bobSocket.first(type: "presence") { $0["event"].string == "leave" }
            #expect(leave?["participant"]["id"].string == carolID)
            #expect(try await harness.bottle(id, as: bob).json["chat"]["state"].string == "active")

            await bobSocket.closeAndWait()
            var dying = JSON.missing
            #expect(try await APIHarness.eventually(timeout: .seconds(10), every: .milliseconds(50)) {
                let reply = try await harness.bottle(id, as: bob)
                dying = reply.json
                return reply.json["chat"]["state"].string == "dying" || reply.code == 404
            })
            if dying["state"].exists {
                #expect(dying["state"].string == "dying")
                #expect(dying["chat"]["deadline"].string != nil, "dying without a deadline: \(dying)")
            }
            // After the countdown the bottle is gone for everyone, and so are its files.
            #expect(try await APIHarness.eventually {
                try await harness.bottle(id, as: creator).code == 404
            })
            for token in [creator, bob, carol] {
                ErrorShape.expect(try await harness.bottle(id, as: token), status: 404, code: "not_found")
            }
            ErrorShape.expect(try await client.get("/api/v1/bottles/\(id)/messages", token: bob), status: 404, code: "not_found")
            #expect(await APIHarness.eventually { !harness.hasMediaFolder(id) }, "media folder left: \(harness.mediaFiles())")
            await #expect(throws: LiveSocket.Refused.self) {
                let socket = try await harness.chatSocket(id, as: bob)
                await socket.closeAndWait()
            }
        }
    }

    /// On the manual clock: the countdown cannot run out between "dying" and the Keep Alive on
    /// a slow machine, and "well past the countdown" is time the test moves, not sleeps.
    @Test("Keep Alive during dying: keeper set and the chat active again")
    func keepAlive() async throws {
        try await APIHarness.run(.init(survival: .init(lifespan: 3600, countdown: 8), presenceGrace: 60, manualClock: true)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let bob = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: bob)
            let socket = try await harness.chatSocket(id, as: bob)
            #expect(await socket.first(type: "hello") != nil)
            await socket.closeAndWait()
            #expect(try await APIHarness.eventually(timeout: .seconds(30), every: .milliseconds(50)) {
                try await harness.bottle(id, as: bob).json["chat"]["state"].string == "dying"
            })
            let kept = try await client.post("/api/v1/bottles/\(id)/keep-alive", token: bob, json: "{}")
            #expect(kept.code == 200, "\(kept)")
            #expect(kept.json["state"].string == "active")
            #expect(kept.json["keeper"]["isMe"].bool == true)
            let view = try await harness.bottle(id, as: bob)
            #expect(view.json["state"].string == "active")
            #expect(view.json["chat"]["state"].string == "active")
            #expect(!view.json["chat"]["deadline"].exists)
            #expect(view.json["chat"]["keeper"]["isMe"].bool == true)
            // Well past the countdown it is still there.
            try await harness.advance(by: 12)
            #expect(try await harness.bottle(id, as: bob).code == 200)
        }
    }

    @Test("an upload is only for the participant who staged it")
    func attachmentOwner() async throws {
        let png = try Fixture.bytes("image-97x61.png")
        try await APIHarness.run(Self.roomyLimits) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let bob = try await harness.newVisitor()
            let carol = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: bob)
            try await harness.open(id, as: carol)
            let upload = try await client.send(.post, "/api/v1/bottles/\(id)/attachments", token: bob, body: png, contentType: "image/png")
            let staged = try #require(upload.json["attachment"].string)
            let stolen = try await client.post("/api/v1/bottles/\(id)/messages", token: carol,
                                               json: #"{"text":"mine","language":"en","attachment":"\#(staged)"}"#)
            ErrorShape.expect(stolen, status: 422, code: "invalid")
            let page = try await client.get("/api/v1/bottles/\(id)/messages", token: bob)
            #expect(page.json["messages"].array?.isEmpty == true)
            // Bob still can.
            let own = try await client.post("/api/v1/bottles/\(id)/messages", token: bob,
                                            json: #"{"text":"mine","language":"en","attachment":"\#(staged)"}"#)
            #expect(own.code == 201, "\(own)")
        }
    }

    @Test("one-shot: only the first reader gets in; when they leave the bottle is gone")
    func oneShot() async throws {
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let reader = try await harness.newVisitor()
            let latecomer = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator, json: #"{"text":"only once","oneShot":true}"#)
            try await harness.open(id, as: reader)
            let refused = try await client.post("/api/v1/bottles/\(id)/open", token: latecomer, json: "{}")
            #expect(refused.code == 403, "\(refused)")
            #expect(!refused.text.contains("only once"))
            let listed = try await client.get("/api/v1/bottles", token: latecomer)
            #expect(listed.json["bottles"].array?.contains { $0["id"].string == id } == false, "an opened one-shot is listed to others")
            let socket = try await harness.chatSocket(id, as: reader)
            #expect(await socket.first(type: "hello") != nil)
            await socket.closeAndWait()
            #expect(try await APIHarness.eventually { try await harness.bottle(id, as: reader).code == 404 })
        }
    }
}
