import DriftCore
@testable import DriftDaemon
import Foundation
import HTTPTypes
import NIOWebSocket
import TestSupport
import Testing

/// Issue #17, finding 7: every event the live sockets send carries what `api/openapi.json`
/// documents — `hello` with `state`, `deadline` and `keeper`, a `keeper` event to everyone
/// connected when someone claims Keep Alive, the presence proof with `validUntil` — and
/// each kind conforms to its schema (`ChatEvent`, `BoxEvent`).
@Suite("Live events: what the sockets send is what the document says")
struct LiveEventContractTests {
    static let weather: LatestReadings.Weather = {
        let json = #"{"celsius":12.5,"hectopascals":1013.2,"relativeHumidity":64,"at":790000000}"#
        return try! JSONDecoder().decode(LatestReadings.Weather.self, from: Data(json.utf8))
    }()

    static func options(manualClock: Bool = false) -> APIHarness.Options {
        var options = APIHarness.Options.roomy
        options.manualClock = manualClock
        options.weather = { LiveEventContractTests.weather }
        return options
    }

    /// A bottle opened by two visitors: its id and their tokens.
    static func sharedChat(_ harness: APIHarness) async throws -> (id: String, bob: String, carol: String) {
        let creator = try await harness.newVisitor()
        let bob = try await harness.newVisitor()
        let carol = try await harness.newVisitor()
        let id = try await harness.createBottleID(creator)
        try await harness.open(id, as: bob)
        try await harness.open(id, as: carol)
        return (id, bob, carol)
    }

    @Test("claiming Keep Alive in a live chat: everyone connected hears the keeper")
    func keeperEvent() async throws {
        try await APIHarness.run(Self.options()) { harness in
            let (id, bob, carol) = try await Self.sharedChat(harness)
            let bobSocket = try await harness.chatSocket(id, as: bob)
            let bobID = try #require(await bobSocket.first(type: "hello")?["me"]["id"].string)
            let carolSocket = try await harness.chatSocket(id, as: carol)
            #expect(await carolSocket.first(type: "hello") != nil)

            let kept = try await harness.client.post("/api/v1/bottles/\(id)/keep-alive", token: bob, json: "{}")
            #expect(kept.code == 200 && kept.json["state"].string == "active", "\(kept)")
            for (socket, isBob) in [(bobSocket, true), (carolSocket, false)] {
                let keeper = await socket.first(type: "keeper")
                #expect(keeper?["participant"]["id"].string == bobID, "\(isBob ? "bob" : "carol"): \(socket.messages)")
                #expect(keeper?["participant"]["isMe"].bool == isBob)
            }
            for socket in [bobSocket, carolSocket] { await socket.closeAndWait() }
        }
    }

    @Test("Keep Alive claimed with the box's button (a presence proof inside the chat): everyone connected hears the keeper")
    func keeperByPresence() async throws {
        try await APIHarness.run(Self.options()) { harness in
            let (id, bob, carol) = try await Self.sharedChat(harness)
            let bobSocket = try await harness.chatSocket(id, as: bob)
            let bobID = try #require(await bobSocket.first(type: "hello")?["me"]["id"].string)
            let carolSocket = try await harness.chatSocket(id, as: carol)
            #expect(await carolSocket.first(type: "hello") != nil)
            let request = try await harness.client.post("/api/v1/presence-requests", token: bob, json: #"{"bottle":"\#(id)"}"#)
            let presses = try #require(request.json["presses"].int, "\(request)")
            for _ in 0..<presses { harness.inputs.yield(.buttonPressed(at: Date())) }
            for socket in [bobSocket, carolSocket] {
                let keeper = await socket.first(type: "keeper", timeout: .seconds(30))
                #expect(keeper?["participant"]["id"].string == bobID, "\(socket.messages)")
            }
            for socket in [bobSocket, carolSocket] { await socket.closeAndWait() }
        }
    }

    @Test("hello tells the chat's state, countdown deadline and keeper (null when none)")
    func helloFields() async throws {
        let validator = SchemaValidator(document: try OpenAPIDocument.load())
        try await APIHarness.run(Self.options()) { harness in
            let (id, bob, carol) = try await Self.sharedChat(harness)
            let bobSocket = try await harness.chatSocket(id, as: bob)
            let hello = try #require(await bobSocket.first(type: "hello"))
            #expect(hello["state"].string == "active", "\(hello)")
            #expect(hello["deadline"].isNull, "\(hello)")
            #expect(hello["keeper"].isNull, "\(hello)")
            #expect(validator.problems(hello, against: validator.schema("ChatEvent")).isEmpty,
                    "\(validator.problems(hello, against: validator.schema("ChatEvent")))")
            let bobID = try #require(hello["me"]["id"].string)

            #expect(try await harness.client.post("/api/v1/bottles/\(id)/keep-alive", token: bob, json: "{}").code == 200)
            let carolSocket = try await harness.chatSocket(id, as: carol)
            let later = try #require(await carolSocket.first(type: "hello"))
            #expect(later["state"].string == "active")
            #expect(later["keeper"]["id"].string == bobID, "\(later)")
            #expect(later["keeper"]["isMe"].bool == false)
            #expect(validator.problems(later, against: validator.schema("ChatEvent")).isEmpty)
            for socket in [bobSocket, carolSocket] { await socket.closeAndWait() }
        }
    }

    /// Presses the presence button as often as the request asks, moving time on until the
    /// proof reaches `socket` (presses may bind only once their burst is over).
    static func provePresence(_ harness: APIHarness, request: HTTPReply, on socket: LiveSocket, bottle: String) async throws -> JSON? {
        for _ in 0..<(request.json["presses"].int ?? 1) { harness.inputs.yield(.buttonPressed(at: harness.now())) }
        for _ in 0..<20 {
            if let proved = await socket.first(type: "presence", timeout: .milliseconds(300), where: { $0["bottle"].string == bottle }) {
                return proved
            }
            try await harness.advance(by: 1)
        }
        return nil
    }

    @Test("the presence proof says until when it counts (the bottle's presence window from the press)")
    func presenceValidUntil() async throws {
        try await APIHarness.run(Self.options(manualClock: true)) { harness in
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator, json: #"{"text":"press","conditions":[{"kind":"presence","withinSeconds":120}]}"#)
            let socket = try await harness.boxSocket(as: visitor)
            let request = try await harness.client.post("/api/v1/presence-requests", token: visitor, json: #"{"bottle":"\#(id)"}"#)
            #expect(request.code == 202, "\(request)")
            let proved = try #require(try await Self.provePresence(harness, request: request, on: socket, bottle: id), "\(socket.messages)")
            let at = try #require(proved["provedAt"].string.flatMap(SchemaValidator.instant), "\(proved)")
            let until = try #require(proved["validUntil"].string.flatMap(SchemaValidator.instant), "\(proved)")
            #expect(until.timeIntervalSince(at) == 120, "\(proved)")
            await socket.closeAndWait()
        }
    }

    @Test("every event kind on the chat and box sockets conforms to ChatEvent / BoxEvent in api/openapi.json")
    func everyEventMatchesSchema() async throws {
        let validator = SchemaValidator(document: try OpenAPIDocument.load())
        var options = Self.options(manualClock: true)
        let campClock = ManualClock()
        options.campClock = campClock
        options.camps = {
            var listing = CampListing.empty
            listing.messages = [CampNewsTests.emergency("a child is lost", at: Date(timeIntervalSince1970: 1_800_000_000))]
            return listing
        }
        try await APIHarness.run(options) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let bob = try await harness.newVisitor()
            let carol = try await harness.newVisitor()
            let watcher = try await harness.newVisitor()
            let creatorBox = try await harness.boxSocket(as: creator)
            let bobBox = try await harness.boxSocket(as: bob)
            let watcherBox = try await harness.boxSocket(as: watcher)
            // weather: a box socket gets the latest reading as it connects (no sweep needed: time stands still).
            #expect(await bobBox.first(type: "weather") != nil || creatorBox.messages.contains { $0["type"].string == "weather" })

            // presence: a proof for a presence bottle.
            let inPerson = try await harness.createBottleID(creator, json: #"{"text":"here","conditions":[{"kind":"presence"}]}"#)
            let request = try await client.post("/api/v1/presence-requests", token: bob, json: #"{"bottle":"\#(inPerson)"}"#)
            #expect(try await Self.provePresence(harness, request: request, on: bobBox, bottle: inPerson) != nil)

            // bottle openable, watch openable: a watched bottle whose delay runs out.
            let delayed = try await harness.createBottleID(creator, json: #"{"text":"later","conditions":[{"kind":"delay","seconds":60}]}"#)
            #expect(try await client.send(.put, "/api/v1/bottles/\(delayed)/watch", token: watcher).code == 200)
            try await harness.advance(by: 61)
            #expect(await watcherBox.first(type: "watch") { $0["bottle"].string == delayed } != nil, "\(watcherBox.messages)")
            #expect(await bobBox.first(type: "bottle") { $0["bottle"].string == delayed && $0["event"].string == "openable" } != nil)

            // bottle locked: a time-of-day window that closes.
            let formatter = DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "HH:mm"
            let window = #"{"kind":"timeOfDay","start":"\#(formatter.string(from: harness.now().addingTimeInterval(-60)))","end":"\#(formatter.string(from: harness.now().addingTimeInterval(180)))"}"#
            let timed = try await harness.createBottleID(creator, json: #"{"text":"now or never","conditions":[\#(window)]}"#)
            try await harness.advance(by: 1)
            try await harness.advance(by: 600)
            #expect(await bobBox.first(type: "bottle") { $0["bottle"].string == timed && $0["event"].string == "locked" } != nil,
                    "\(bobBox.messages)")

            // Chat: hello, presence join and leave, message, typing, keeper; creator: firstOpen, joined, linesWhileAway.
            let chat = try await harness.createBottleID(creator)
            try await harness.open(chat, as: bob)
            try await harness.open(chat, as: carol)
            let bobChat = try await harness.chatSocket(chat, as: bob)
            #expect(await bobChat.first(type: "hello") != nil)
            let carolChat = try await harness.chatSocket(chat, as: carol)
            #expect(await carolChat.first(type: "hello") != nil)
            #expect(await bobChat.first(type: "presence") { $0["event"].string == "join" } != nil)
            #expect(try await client.post("/api/v1/bottles/\(chat)/messages", token: bob, json: #"{"text":"hi","language":"en"}"#).code == 201)
            #expect(await carolChat.first(type: "message") != nil)
            carolChat.send(#"{"type":"typing"}"#)
            #expect(await bobChat.first(type: "typing") { $0["participants"].array?.isEmpty == false } != nil)
            #expect(try await client.post("/api/v1/bottles/\(chat)/keep-alive", token: bob, json: "{}").code == 200)
            #expect(await carolChat.first(type: "keeper") != nil)
            await carolChat.closeAndWait()
            #expect(await bobChat.first(type: "presence") { $0["event"].string == "leave" } != nil)
            for event in ["firstOpen", "joined", "linesWhileAway"] {
                #expect(await creatorBox.first(type: "creator") { $0["bottle"].string == chat && $0["event"].string == event } != nil,
                        "no creator \(event): \(creatorBox.messages)")
            }

            // bottle dying (the last one leaves), active (they come back, and hold it).
            let second = try await harness.createBottleID(creator)
            try await harness.open(second, as: carol)
            let carolSecond = try await harness.chatSocket(second, as: carol)
            #expect(await carolSecond.first(type: "hello") != nil)
            await carolSecond.closeAndWait()
            let dying = await bobBox.first(type: "bottle") { $0["bottle"].string == second && $0["event"].string == "dying" }
            #expect(dying?["deadline"].string != nil, "\(bobBox.messages)")
            let back = try await harness.chatSocket(second, as: carol)
            let rejoined = try #require(await back.first(type: "hello"))
            #expect(rejoined["keeper"]["isMe"].bool == true, "coming back holds the chat: \(rejoined)")
            #expect(await bobBox.first(type: "bottle") { $0["bottle"].string == second && $0["event"].string == "active" } != nil)

            // lifecycle expired on the chat socket, bottle expired on the box sockets: the bottle's lifetime ends.
            let brief = try await harness.createBottleID(creator, json: #"{"text":"brief","lifetimeSeconds":60}"#)
            try await harness.open(brief, as: bob)
            let briefChat = try await harness.chatSocket(brief, as: bob)
            #expect(await briefChat.first(type: "hello") != nil)
            try await harness.advance(by: 61)
            #expect(await briefChat.first(type: "lifecycle") { $0["state"].string == "expired" } != nil, "\(briefChat.messages)")
            #expect(await briefChat.waitClosed())
            #expect(briefChat.closeCode == .normalClosure, "the hub ended the chat: a polite close, \(String(describing: briefChat.closeCode))")
            #expect(await bobBox.first(type: "bottle") { $0["bottle"].string == brief && $0["event"].string == "expired" } != nil)

            // camps: the camp news, on every box socket.
            await campClock.waitForSleepers(1)
            campClock.advance(by: .seconds(2))
            #expect(await bobBox.first(type: "camps") != nil, "\(bobBox.messages)")

            // Every message received conforms; every kind was seen.
            let chatSockets = [bobChat, carolChat, carolSecond, back, briefChat]
            let boxSockets = [creatorBox, bobBox, watcherBox]
            for (sockets, schema) in [(chatSockets, "ChatEvent"), (boxSockets, "BoxEvent")] {
                for message in sockets.flatMap(\.messages) {
                    let problems = validator.problems(message, against: validator.schema(schema))
                    #expect(problems.isEmpty, "\(schema) \(message["type"]): \(problems)")
                }
            }
            let chatKinds = Set(chatSockets.flatMap(\.messages).compactMap { $0["type"].string })
            let boxKinds = Set(boxSockets.flatMap(\.messages).compactMap { $0["type"].string })
            #expect(chatKinds == ["hello", "message", "presence", "typing", "keeper", "lifecycle"], "\(chatKinds)")
            #expect(boxKinds == ["bottle", "watch", "presence", "creator", "weather", "camps"], "\(boxKinds)")
            let documented = { (name: String) in
                Set(validator.schema(name)["discriminator"]["mapping"].object?.keys.map { $0 } ?? [])
            }
            #expect(documented("ChatEvent") == chatKinds, "the document's chat event kinds")
            #expect(documented("BoxEvent") == boxKinds, "the document's box event kinds")
            for socket in chatSockets + boxSockets { await socket.closeAndWait() }
        }
    }
}
