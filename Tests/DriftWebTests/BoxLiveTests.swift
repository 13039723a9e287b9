import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

@Suite("Box live socket: watches, presence proofs, creator notices")
struct BoxLiveTests {
    @Test("a watched locked bottle becoming openable is announced to its watcher")
    func watchOpenable() async throws {
        // Time stands still until the test moves it: the bottle is locked however slowly the
        // machine runs, and the delay runs out when the test says so, not after 25 real seconds.
        try await APIHarness.run(.init(manualClock: true)) { harness in
            let creator = try await harness.newVisitor()
            let watcher = try await harness.newVisitor()
            let bystander = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator, json: #"{"text":"soon","conditions":[{"kind":"delay","seconds":25}]}"#)
            #expect(try await harness.bottle(id, as: creator).json["state"].string == "locked")
            let watch = try await harness.client.send(.put, "/api/v1/bottles/\(id)/watch", token: watcher)
            #expect(watch.code == 200 && watch.json["isWatched"].bool == true)
            let watcherSocket = try await harness.boxSocket(as: watcher)
            let bystanderSocket = try await harness.boxSocket(as: bystander)
            try await harness.advance(by: 24)
            #expect(try await harness.bottle(id, as: watcher).json["state"].string == "locked", "a second before its delay runs out")
            #expect(!watcherSocket.messages.contains { $0["type"].string == "watch" })
            try await harness.advance(by: 2)

            let event = await watcherSocket.first(type: "watch") { $0["bottle"].string == id }
            #expect(event?["event"].string == "openable", "\(watcherSocket.messages)")
            #expect(await bystanderSocket.first(type: "bottle") { $0["bottle"].string == id && $0["event"].string == "openable" } != nil,
                    "everyone hears a bottle became openable")
            #expect(!bystanderSocket.messages.contains { $0["type"].string == "watch" }, "watch events go to watchers only")
            #expect(try await harness.bottle(id, as: watcher).json["state"].string == "openable")

            // The creator hears of the first open on their own socket.
            let creatorSocket = try await harness.boxSocket(as: creator)
            try await harness.open(id, as: watcher)
            let notice = await creatorSocket.first(type: "creator") { $0["bottle"].string == id }
            #expect(notice?["event"].string == "firstOpen")
            #expect(!bystanderSocket.messages.contains { $0["type"].string == "creator" })

            for socket in [watcherSocket, bystanderSocket, creatorSocket] { await socket.closeAndWait() }
        }
    }

    @Test("presses prove presence to the visitor whose count they match, not to one who asked first from elsewhere; the bottle opens")
    func presence() async throws {
        try await APIHarness.run(.init(presenceGrace: 60)) { harness in
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let other = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator, json: #"{"text":"press the button","conditions":[{"kind":"presence","withinSeconds":300}]}"#)
            // A bottle that opens when it is warm: its announcement, to everyone, marks a point
            // in every socket's stream (the box hub sends its events in order).
            let warm = try await harness.createBottleID(creator, json: #"{"text":"warm","conditions":[{"kind":"temperature","min":30}]}"#)
            let refused = try await harness.client.post("/api/v1/bottles/\(id)/open", token: visitor, json: "{}")
            ErrorShape.expect(refused, status: 403, code: "locked")

            let visitorSocket = try await harness.boxSocket(as: visitor)
            let otherSocket = try await harness.boxSocket(as: other)
            // `other` asks first (from anywhere on the network), then the visitor at the box.
            let first = try await harness.client.post("/api/v1/presence-requests", token: other, json: #"{"bottle":"\#(id)"}"#)
            let request = try await harness.client.post("/api/v1/presence-requests", token: visitor, json: #"{"bottle":"\#(id)"}"#)
            #expect(first.code == 202 && request.code == 202, "\(first) \(request)")
            let presses = try #require(request.json["presses"].int)
            #expect(presses >= 2 && presses != first.json["presses"].int)
            // The visitor presses the count their page shows.
            for _ in 0..<presses { harness.inputs.yield(.buttonPressed(at: Date())) }

            let proved = await visitorSocket.first(type: "presence", timeout: .seconds(30)) { $0["bottle"].string == id }
            #expect(proved != nil, "no presence event: \(visitorSocket.messages)")
            #expect(proved?["provedAt"].string != nil)
            // A proof misrouted to `other` would reach its socket before anything that comes after
            // it: the warm bottle's announcement, once the box reads 35 °C.
            harness.inputs.yield(.reading(.temperature, SensorReading(time: Date(), value: 35)))
            #expect(await otherSocket.first(type: "bottle", timeout: .seconds(30)) { $0["bottle"].string == warm && $0["event"].string == "openable" } != nil,
                    "\(otherSocket.messages)")
            #expect(!otherSocket.messages.contains { $0["type"].string == "presence" }, "presence went to another visitor")

            let opened = try await harness.client.post("/api/v1/bottles/\(id)/open", token: visitor, json: "{}")
            #expect(opened.code == 200, "presence proved, the bottle opens: \(opened)")
            let stolen = try await harness.client.post("/api/v1/bottles/\(id)/open", token: other, json: "{}")
            ErrorShape.expect(stolen, status: 403, code: "locked")
            #expect(opened.json["content"]["text"].string == "press the button")
            await visitorSocket.closeAndWait()
            await otherSocket.closeAndWait()
        }
    }

    @Test("a box without a presence button refuses presence requests")
    func noButton() async throws {
        try await APIHarness.run(.init(hasPresenceButton: false)) { harness in
            let creator = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            let reply = try await harness.client.post("/api/v1/presence-requests", token: creator, json: #"{"bottle":"\#(id)"}"#)
            ErrorShape.expect(reply, status: 422, code: "invalid")
            #expect(try await harness.client.get("/api/v1/box", token: creator).json["hasPresenceButton"].bool == false)
        }
    }
}
