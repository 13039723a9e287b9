import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

/// Every documented route once, on its success path: status, Content-Type and the
/// documented JSON fields (``OpenAPIDocument/expect(_:_:_:status:sourceLocation:)``).
@Suite("Routes: every operation of api/openapi.json succeeds as documented")
struct RouteTests {
    @Test("visitors, box, lists and the page")
    func visitorsAndBox() async throws {
        let document = try OpenAPIDocument.load()
        try await APIHarness.run { harness in
            let client = harness.client
            let created = try await client.send(.post, "/api/v1/visitors")
            document.expect(created, .post, "/api/v1/visitors", status: 201)
            let token = try #require(created.json["token"].string)
            #expect(token.count == 43)

            let box = try await client.get("/api/v1/box", token: token)
            document.expect(box, .get, "/api/v1/box", status: 200)
            #expect(box.json["name"].string == "Test Box")
            #expect(box.json["hasPresenceButton"].bool == true)
            #expect(box.json["limits"]["chatCountdownSeconds"].int == 2)

            let id = try await harness.createBottleID(token)
            for path in ["/api/v1/bottles", "/api/v1/my/bottles"] {
                let list = try await client.get(path, token: token)
                document.expect(list, .get, path, status: 200)
                #expect(list.json["bottles"].array?.compactMap { $0["id"].string }.contains(id) == true, "\(path): \(list)")
            }
            let watches = try await client.get("/api/v1/my/watches", token: token)
            document.expect(watches, .get, "/api/v1/my/watches", status: 200)
            #expect(watches.json["bottles"].array?.isEmpty == true)

            // The page is embedded from web/ when the repository has it.
            let page = try await client.get("/")
            if FileManager.default.fileExists(atPath: OpenAPIDocument.repositoryRoot + "/web/index.html") {
                #expect(page.code == 200)
                #expect(page.contentType.hasPrefix("text/html"))
            } else {
                ErrorShape.expect(page, status: 404, code: "not_found")
            }
        }
    }

    @Test("bottle create, read, edit, watch, retire")
    func bottleLifecycle() async throws {
        let document = try OpenAPIDocument.load()
        try await APIHarness.run { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let created = try await client.post("/api/v1/bottles", token: creator, json: """
                {"text":"under the bridge","hint":"look down","conditions":[{"kind":"password","password":"river","hint":"what flows"}],
                 "lifetimeSeconds":86400,"oneShot":false,"placement":"nearby"}
                """)
            document.expect(created, .post, "/api/v1/bottles", status: 201)
            let id = try #require(created.json["id"].string)
            #expect(created.json["isMine"].bool == true)
            #expect(created.json["content"]["text"].string == "under the bridge")
            #expect(created.json["hint"].string == "look down")
            #expect(created.json["draft"]["conditions"][0]["kind"].string == "password")
            #expect(created.json["draft"]["conditions"][0]["password"].isMissing, "the password never comes back")

            let read = try await harness.bottle(id, as: creator)
            document.expect(read, .get, "/api/v1/bottles/{id}", status: 200)
            #expect(read.json["id"].string == id)
            let byCode = try await harness.bottle(try #require(created.json["shareCode"].string), as: visitor)
            #expect(byCode.code == 200 && byCode.json["id"].string == id, "by share code: \(byCode)")

            let edited = try await client.send(.patch, "/api/v1/bottles/\(id)", token: creator, json: """
                {"text":"under the old bridge","conditions":[{"kind":"password"}]}
                """)
            document.expect(edited, .patch, "/api/v1/bottles/{id}", status: 200)
            #expect(edited.json["content"]["text"].string == "under the old bridge")
            // The password condition was kept without retyping it.
            let guess = try await client.post("/api/v1/bottles/\(id)/open", token: visitor, json: #"{"password":"river"}"#)
            #expect(guess.code == 200, "the kept password still opens: \(guess)")

            let other = try await harness.createBottleID(creator, json: #"{"text":"watch me","conditions":[{"kind":"delay","seconds":3600}]}"#)
            let watched = try await client.send(.put, "/api/v1/bottles/\(other)/watch", token: visitor)
            document.expect(watched, .put, "/api/v1/bottles/{id}/watch", status: 200)
            #expect(watched.json["isWatched"].bool == true)
            let mine = try await client.get("/api/v1/my/watches", token: visitor)
            #expect(mine.json["bottles"][0]["id"].string == other)
            let unwatched = try await client.send(.delete, "/api/v1/bottles/\(other)/watch", token: visitor)
            document.expect(unwatched, .delete, "/api/v1/bottles/{id}/watch", status: 200)
            #expect(unwatched.json["isWatched"].bool == false)

            let retired = try await client.delete("/api/v1/bottles/\(other)", token: creator)
            document.expect(retired, .delete, "/api/v1/bottles/{id}", status: 204)
            let gone = try await harness.bottle(other, as: creator)
            #expect(gone.code == 404)
        }
    }

    @Test("media: put, get and delete image and whisper")
    func media() async throws {
        let document = try OpenAPIDocument.load()
        let png = try Fixture.bytes("image-97x61.png")
        let webm = try Fixture.bytes("whisper-3s.webm")
        try await APIHarness.run { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            let image = try await client.put("/api/v1/bottles/\(id)/image", token: creator, bytes: png, contentType: "image/png")
            document.expect(image, .put, "/api/v1/bottles/{id}/image", status: 200)
            #expect(image.json["content"]["image"]["width"].int == 97)
            #expect(image.json["content"]["image"]["height"].int == 61)
            #expect(image.json["hasImage"].bool == true)
            let got = try await client.get("/api/v1/bottles/\(id)/image", token: creator)
            document.expect(got, .get, "/api/v1/bottles/{id}/image", status: 200)
            #expect(got.body == png)

            let whisper = try await client.put("/api/v1/bottles/\(id)/whisper", token: creator, bytes: webm, contentType: "audio/webm")
            document.expect(whisper, .put, "/api/v1/bottles/{id}/whisper", status: 200)
            let seconds = try #require(whisper.json["content"]["whisper"]["durationSeconds"].number)
            #expect(abs(seconds - 3) < 0.5)
            let heard = try await client.get("/api/v1/bottles/\(id)/whisper", token: creator)
            document.expect(heard, .get, "/api/v1/bottles/{id}/whisper", status: 200)
            #expect(heard.body == webm)

            let noImage = try await client.delete("/api/v1/bottles/\(id)/image", token: creator)
            document.expect(noImage, .delete, "/api/v1/bottles/{id}/image", status: 200)
            #expect(noImage.json["hasImage"].bool == false)
            let noWhisper = try await client.delete("/api/v1/bottles/\(id)/whisper", token: creator)
            document.expect(noWhisper, .delete, "/api/v1/bottles/{id}/whisper", status: 200)
            #expect(noWhisper.json["hasWhisper"].bool == false)
            #expect(harness.mediaFiles().isEmpty, "files left: \(harness.mediaFiles())")
        }
    }

    @Test("open, chat, attachments, keep-alive, live sockets, presence request")
    func openAndChat() async throws {
        let document = try OpenAPIDocument.load()
        let png = try Fixture.bytes("image-97x61.png")
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)

            let box = try await harness.boxSocket(as: opener)
            let opened = try await client.post("/api/v1/bottles/\(id)/open", token: opener, json: "{}")
            document.expect(opened, .post, "/api/v1/bottles/{id}/open", status: 200)
            #expect(opened.json["state"].string == "active")
            #expect(opened.json["hasOpened"].bool == true)
            #expect(opened.json["content"]["text"].string == "hello from the river")
            #expect(opened.json["chat"]["me"]["isMe"].bool == true)

            let chat = try await harness.chatSocket(id, as: opener)
            let hello = await chat.first(type: "hello")
            #expect(hello?["me"]["isMe"].bool == true)

            let posted = try await client.post("/api/v1/bottles/\(id)/messages", token: opener, json: #"{"text":"hi","language":"en"}"#)
            document.expect(posted, .post, "/api/v1/bottles/{id}/messages", status: 201)
            #expect(posted.json["text"].string == "hi")
            let page = try await client.get("/api/v1/bottles/\(id)/messages", token: opener)
            document.expect(page, .get, "/api/v1/bottles/{id}/messages", status: 200)
            #expect(page.json["messages"][0]["text"].string == "hi")

            let upload = try await client.send(.post, "/api/v1/bottles/\(id)/attachments", token: opener, body: png, contentType: "image/png")
            #expect(upload.code == 201 && upload.isJSON, "\(upload)")
            document.expect(upload, .post, "/api/v1/bottles/{id}/attachments", status: 201)
            let attachment = try #require(upload.json["attachment"].string)
            let withAttachment = try await client.post("/api/v1/bottles/\(id)/messages", token: opener,
                                                       json: #"{"text":"look","language":"en","attachment":"\#(attachment)"}"#)
            #expect(withAttachment.code == 201, "\(withAttachment)")
            let url = try #require(withAttachment.json["attachment"]["url"].string)
            #expect(url == "/api/v1/bottles/\(id)/messages/\(attachment)/attachment")
            let file = try await client.get(url, token: opener)
            #expect(file.code == 200 && file.contentType == "image/png", "\(file)")
            document.expect(file, .get, "/api/v1/bottles/{id}/messages/{message}/attachment", status: 200)
            #expect(file.body == png)

            let kept = try await client.post("/api/v1/bottles/\(id)/keep-alive", token: opener, json: "{}")
            document.expect(kept, .post, "/api/v1/bottles/{id}/keep-alive", status: 200)
            #expect(kept.json["keeper"]["isMe"].bool == true)
            #expect(kept.json["state"].string == "active")

            let presence = try await client.post("/api/v1/presence-requests", token: opener, json: #"{"bottle":"\#(id)"}"#)
            document.expect(presence, .post, "/api/v1/presence-requests", status: 202)
            #expect(presence.json["bottle"].string == id)

            await chat.closeAndWait()
            await box.closeAndWait()
        }
    }
}
