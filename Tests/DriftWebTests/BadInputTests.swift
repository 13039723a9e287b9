import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

@Suite("Bad input: clear 4xx and nothing changed")
struct BadInputTests {
    @Test("malformed JSON, wrong types, missing fields, unknown kinds, wrong Content-Type, huge bodies")
    func badJSON() async throws {
        try await APIHarness.run { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            let before = try await harness.bottle(id, as: creator).json
            let countBefore = try await client.get("/api/v1/my/bottles", token: creator).json["bottles"].array?.count

            for path in ["/api/v1/bottles", "/api/v1/bottles/\(id)"] {
                let method: HTTPRequest.Method = path.hasSuffix("bottles") ? .post : .patch
                ErrorShape.expect(try await client.send(method, path, token: creator, json: #"{"text":"#), status: 400, code: "bad_request")
                ErrorShape.expect(try await client.send(method, path, token: creator, json: "[1,2"), status: 400, code: "bad_request")
                ErrorShape.expect(try await client.send(method, path, token: creator, json: "not json"), status: 400, code: "bad_request")
                let wrongType = ErrorShape.expect(try await client.send(method, path, token: creator, json: #"{"text":5}"#),
                                                  status: 400, code: "bad_request")
                #expect(wrongType["details"]["path"].string == "text", "\(wrongType)")
                #expect(wrongType["message"].string?.contains("text") == true)
                let missing = ErrorShape.expect(try await client.send(method, path, token: creator, json: #"{"hint":"no text"}"#),
                                                status: 400, code: "bad_request")
                #expect(missing["message"].string?.contains("text") == true, "\(missing)")
                ErrorShape.expect(try await client.send(method, path, token: creator, json: #"{"text":"x","conditions":"password"}"#),
                                  status: 400, code: "bad_request")
                ErrorShape.expect(try await client.send(method, path, token: creator, json: #"{"text":"x","oneShot":"yes"}"#),
                                  status: 400, code: "bad_request")
                let unknown = ErrorShape.expect(try await client.send(method, path, token: creator,
                                                                      json: #"{"text":"x","conditions":[{"kind":"moonPhase"}]}"#),
                                                status: 422, code: "invalid")
                #expect(unknown["details"]["field"].string == "conditions.kind", "\(unknown)")
                let incomplete = ErrorShape.expect(try await client.send(method, path, token: creator,
                                                                         json: #"{"text":"x","conditions":[{"kind":"timeOfDay","start":"07:00"}]}"#),
                                                   status: 422, code: "invalid")
                #expect(incomplete["details"]["field"].string == "conditions.timeOfDay.end", "\(incomplete)")
                let badTime = ErrorShape.expect(try await client.send(method, path, token: creator,
                                                                      json: #"{"text":"x","conditions":[{"kind":"timeOfDay","start":"25:00","end":"07:00"}]}"#),
                                                status: 422, code: "invalid")
                #expect(badTime["details"]["field"].string == "conditions.timeOfDay.start")
                ErrorShape.expect(try await client.send(method, path, token: creator, body: Array(#"{"text":"x"}"#.utf8), contentType: "text/plain"),
                                  status: 415, code: "unsupported_media_type")
                let huge = #"{"text":""# + String(repeating: "a", count: 70 * 1024) + #""}"#
                let tooLarge = ErrorShape.expect(try await client.send(method, path, token: creator, json: huge),
                                                 status: 413, code: "payload_too_large")
                #expect(tooLarge["details"]["limitBytes"].int == 64 * 1024)
            }
            ErrorShape.expect(try await client.post("/api/v1/bottles", token: creator, json: #"{"text":"   "}"#), status: 422, code: "invalid")
            ErrorShape.expect(try await client.post("/api/v1/bottles/\(id)/messages", token: creator, json: #"{"text":1,"language":"en"}"#),
                              status: 400, code: "bad_request")
            ErrorShape.expect(try await client.post("/api/v1/presence-requests", token: creator, json: #"{}"#), status: 400, code: "bad_request")
            ErrorShape.expect(try await client.post("/api/v1/presence-requests", token: creator, json: #"{"bottle":"nope"}"#),
                              status: 404, code: "not_found")
            ErrorShape.expect(try await client.get("/api/v1/bottles/nope", token: creator), status: 404, code: "not_found")
            ErrorShape.expect(try await client.get("/api/v1/nothing-here", token: creator), status: 404, code: "not_found")

            #expect(try await harness.bottle(id, as: creator).json == before)
            #expect(try await client.get("/api/v1/my/bottles", token: creator).json["bottles"].array?.count == countBefore)
        }
    }

    @Test("bad media: wrong magic, truncated, too short or long whisper, empty, too large — refused, nothing changed")
    func badMedia() async throws {
        let png = try Fixture.bytes("image-97x61.png")
        let webm = try Fixture.bytes("whisper-3s.webm")
        let oneSecond = try Fixture.bytes("chromium-1s.webm")
        let nineSeconds = try Fixture.bytes("chromium-9s.webm")
        try await APIHarness.run { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            #expect(try await client.put("/api/v1/bottles/\(id)/image", token: creator, bytes: png, contentType: "image/png").code == 200)
            #expect(try await client.put("/api/v1/bottles/\(id)/whisper", token: creator, bytes: webm, contentType: "audio/webm").code == 200)
            let before = try await harness.bottle(id, as: creator).json
            let filesBefore = harness.mediaFiles()
            #expect(filesBefore.count == 2, "\(filesBefore)")

            let image = "/api/v1/bottles/\(id)/image"
            let whisper = "/api/v1/bottles/\(id)/whisper"
            let magic = ErrorShape.expect(try await client.put(image, token: creator, bytes: Array("GIF89a not an image at all".utf8), contentType: "image/png"),
                                          status: 415, code: "unsupported_media_type")
            #expect(magic["message"].string?.hasPrefix("image") == true)
            let truncated = try await client.put(image, token: creator, bytes: Array(png.prefix(40)), contentType: "image/png")
            #expect(truncated.code == 422 || truncated.code == 415, "\(truncated)")
            ErrorShape.expect(truncated, status: truncated.code, code: truncated.code == 422 ? "invalid" : "unsupported_media_type")
            let emptyImage = ErrorShape.expect(try await client.put(image, token: creator, bytes: [], contentType: "image/png"), status: 422, code: "invalid")
            #expect(emptyImage["details"]["field"].string == "image")
            let big = png.prefix(16) + [UInt8](repeating: 0, count: 3 * 1024 * 1024 + 1 - 16)
            ErrorShape.expect(try await client.put(image, token: creator, bytes: Array(big), contentType: "image/png"),
                              status: 413, code: "payload_too_large")
            let short = ErrorShape.expect(try await client.put(whisper, token: creator, bytes: oneSecond, contentType: "audio/webm"),
                                          status: 422, code: "invalid")
            #expect(short["details"]["field"].string == "whisper.duration", "\(short)")
            let long = ErrorShape.expect(try await client.put(whisper, token: creator, bytes: nineSeconds, contentType: "audio/webm"),
                                         status: 422, code: "invalid")
            #expect(long["details"]["field"].string == "whisper.duration")
            ErrorShape.expect(try await client.put(whisper, token: creator, bytes: [], contentType: "audio/webm"), status: 422, code: "invalid")
            ErrorShape.expect(try await client.put(whisper, token: creator, bytes: png, contentType: "audio/webm"),
                              status: 415, code: "unsupported_media_type")
            let bigAudio = webm.prefix(16) + [UInt8](repeating: 0, count: 2 * 1024 * 1024 + 1 - 16)
            ErrorShape.expect(try await client.put(whisper, token: creator, bytes: Array(bigAudio), contentType: "audio/webm"),
                              status: 413, code: "payload_too_large")

            #expect(try await harness.bottle(id, as: creator).json == before)
            #expect(harness.mediaFiles() == filesBefore)
            #expect(try await client.get(image, token: creator).body == png)
            #expect(try await client.get(whisper, token: creator).body == webm)
        }
    }

    @Test("bad chat attachments are refused and leave no file")
    func badAttachments() async throws {
        let png = try Fixture.bytes("image-97x61.png")
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: opener)
            let path = "/api/v1/bottles/\(id)/attachments"
            ErrorShape.expect(try await client.send(.post, path, token: opener, body: Array("nope".utf8), contentType: "image/png"),
                              status: 415, code: "unsupported_media_type")
            ErrorShape.expect(try await client.send(.post, path, token: opener, body: [], contentType: "image/png"), status: 422, code: "invalid")
            ErrorShape.expect(try await client.send(.post, path, token: opener, body: Array(png.prefix(30)), contentType: "audio/ogg"),
                              status: 415, code: "unsupported_media_type")
            #expect(harness.mediaFiles().isEmpty, "\(harness.mediaFiles())")
            // A message naming no staged upload.
            let ghost = ErrorShape.expect(try await client.post("/api/v1/bottles/\(id)/messages", token: opener,
                                                                json: #"{"text":"x","language":"en","attachment":"nothing"}"#),
                                          status: 422, code: "invalid")
            #expect(ghost["details"]["field"].string == "attachment")
            let page = try await client.get("/api/v1/bottles/\(id)/messages", token: opener)
            #expect(page.json["messages"].array?.isEmpty == true)
        }
    }
}
