import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

@Suite("Media round trip: upload, read back, replace, delete")
struct MediaRoundTripTests {
    static let images = [("image-97x61.png", "image/png"), ("baseline-97x61.jpg", "image/jpeg"), ("lossy-97x61.webp", "image/webp")]
    static let whispers = [("whisper-3s.webm", "audio/webm"), ("whisper-3s.mp4", "audio/mp4"), ("whisper-3s.opus.ogg", "audio/ogg")]

    @Test("PNG, JPEG, WebP images and WebM, MP4, Ogg whispers come back byte for byte to creator and opener")
    func roundTrip() async throws {
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let opener = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            var lastImage: [UInt8] = []
            var lastWhisper: [UInt8] = []
            for (name, type) in Self.images {
                let bytes = try Fixture.bytes(name)
                let put = try await client.put("/api/v1/bottles/\(id)/image", token: creator, bytes: bytes, contentType: type)
                #expect(put.code == 200, "\(name): \(put)")
                #expect(put.json["content"]["image"]["contentType"].string == type)
                #expect(put.json["content"]["image"]["bytes"].int == bytes.count)
                let get = try await client.get("/api/v1/bottles/\(id)/image", token: creator)
                #expect(get.code == 200)
                #expect(get.contentType == type, "\(name)")
                #expect(get.body == bytes, "\(name) bytes differ")
                // Replacing with another format leaves exactly one image file.
                let files = harness.mediaFiles().filter { $0.contains("/content/image.") }
                #expect(files.count == 1, "\(name): \(files)")
                lastImage = bytes
            }
            for (name, type) in Self.whispers {
                let bytes = try Fixture.bytes(name)
                let put = try await client.put("/api/v1/bottles/\(id)/whisper", token: creator, bytes: bytes, contentType: type)
                #expect(put.code == 200, "\(name): \(put)")
                #expect(put.json["content"]["whisper"]["contentType"].string == type)
                let seconds = put.json["content"]["whisper"]["durationSeconds"].number ?? 0
                #expect(abs(seconds - 3) < 0.5, "\(name): \(seconds) s")
                let get = try await client.get("/api/v1/bottles/\(id)/whisper", token: creator)
                #expect(get.contentType == type, "\(name)")
                #expect(get.body == bytes, "\(name) bytes differ")
                let files = harness.mediaFiles().filter { $0.contains("/content/whisper.") }
                #expect(files.count == 1, "\(name): \(files)")
                lastWhisper = bytes
            }
            #expect(harness.mediaFiles().count == 2, "\(harness.mediaFiles())")

            let opened = try await harness.open(id, as: opener)
            let imageURL = try #require(opened["content"]["image"]["url"].string)
            let whisperURL = try #require(opened["content"]["whisper"]["url"].string)
            let image = try await client.get(imageURL, token: opener)
            #expect(image.code == 200 && image.contentType == "image/webp")
            #expect(image.body == lastImage)
            #expect(image.headers[.cacheControl]?.contains("no-store") == true)
            let whisper = try await client.get(whisperURL, token: opener)
            #expect(whisper.contentType == "audio/ogg")
            #expect(whisper.body == lastWhisper)
            // Once opened, the content is fixed.
            ErrorShape.expect(try await client.delete("/api/v1/bottles/\(id)/image", token: creator), status: 409, code: "conflict")
            #expect(try await client.get(imageURL, token: creator).body == lastImage)
        }
    }

    @Test("DELETE removes the image and whisper files")
    func deleteRemovesFiles() async throws {
        let jpeg = try Fixture.bytes("baseline-97x61.jpg")
        let mp4 = try Fixture.bytes("whisper-3s.mp4")
        try await APIHarness.run { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            #expect(try await client.put("/api/v1/bottles/\(id)/image", token: creator, bytes: jpeg, contentType: "image/jpeg").code == 200)
            #expect(try await client.put("/api/v1/bottles/\(id)/whisper", token: creator, bytes: mp4, contentType: "audio/mp4").code == 200)
            #expect(harness.mediaFiles().count == 2)
            #expect(try await client.delete("/api/v1/bottles/\(id)/image", token: creator).code == 200)
            #expect(harness.mediaFiles().count == 1, "\(harness.mediaFiles())")
            ErrorShape.expect(try await client.get("/api/v1/bottles/\(id)/image", token: creator), status: 404, code: "not_found")
            #expect(try await client.delete("/api/v1/bottles/\(id)/whisper", token: creator).code == 200)
            #expect(harness.mediaFiles().isEmpty, "\(harness.mediaFiles())")
            ErrorShape.expect(try await client.get("/api/v1/bottles/\(id)/whisper", token: creator), status: 404, code: "not_found")
            // Retiring a bottle with media removes its folder.
            #expect(try await client.put("/api/v1/bottles/\(id)/image", token: creator, bytes: jpeg, contentType: "image/jpeg").code == 200)
            #expect(try await client.delete("/api/v1/bottles/\(id)", token: creator).code == 204)
            #expect(await APIHarness.eventually { !harness.hasMediaFolder(id) })
            #expect(harness.mediaFiles().isEmpty)
        }
    }

    @Test("the served Content-Type follows the bytes, not the upload's label")
    func typeFromContent() async throws {
        let jpeg = try Fixture.bytes("baseline-97x61.jpg")
        let ogg = try Fixture.bytes("whisper-3s.opus.ogg")
        try await APIHarness.run { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            #expect(try await client.put("/api/v1/bottles/\(id)/image", token: creator, bytes: jpeg, contentType: "image/png").code == 200)
            let image = try await client.get("/api/v1/bottles/\(id)/image", token: creator)
            #expect(image.contentType == "image/jpeg")
            #expect(image.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(try await client.put("/api/v1/bottles/\(id)/whisper", token: creator, bytes: ogg, contentType: "audio/webm").code == 200)
            #expect(try await client.get("/api/v1/bottles/\(id)/whisper", token: creator).contentType == "audio/ogg")
            #expect(harness.mediaFiles().contains { $0.hasSuffix("image.jpeg") }, "\(harness.mediaFiles())")
        }
    }
}
