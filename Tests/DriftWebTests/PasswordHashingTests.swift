import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import TestSupport
import Testing

/// A hasher that passes a ``ThreadGate`` before every derivation: the gate counts each hash
/// and verification at the lowest boundary and, closed, holds the hashing threads.
struct GatedHasher: PasswordHashing {
    let gate: ThreadGate
    let inner = PasswordHasher(iterations: 1_000)

    var iterations: Int { inner.iterations }

    func hash(_ password: String) throws(DomainValidationError) -> PasswordHash {
        gate.pass()
        return try inner.hash(password)
    }

    func verify(_ attempt: String, against stored: PasswordHash) -> Bool {
        gate.pass()
        return inner.verify(attempt, against: stored)
    }
}

@Suite("Password hashing: checked before it costs, off every shared executor, bounded")
struct PasswordHashingTests {
    static let protected = #"{"text":"under the stone","conditions":[{"kind":"password","password":"river"}]}"#

    static func options(_ gate: ThreadGate, threads: Int = 2, waiting: Int = 8) -> APIHarness.Options {
        var options = APIHarness.Options(presenceGrace: 60)
        options.passwordHasher = GatedHasher(gate: gate)
        options.passwordHashing = PasswordHashingPool.Configuration(threads: threads, waiting: waiting)
        return options
    }

    /// A drop body with `count` password conditions.
    static func passwords(_ count: Int) -> String {
        let conditions = (0..<count).map { #"{"kind":"password","password":"secret\#($0)"}"# }.joined(separator: ",")
        return #"{"text":"sixteen locks","conditions":[\#(conditions)]}"#
    }

    @Test("a drop with 16 password conditions is 422 without a single hash; so is every other refused drop or edit")
    func refusedDropsCostNoHash() async throws {
        let gate = ThreadGate(open: true)
        try await APIHarness.run(Self.options(gate)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()

            let sixteen = try await client.post("/api/v1/bottles", token: creator, json: Self.passwords(16))
            let error = ErrorShape.expect(sixteen, status: 422, code: "invalid")
            #expect(error["details"]["problem"].string == "each kind of condition may appear once", "\(sixteen)")
            #expect(gate.arrived == 0, "the refused drop hashed \(gate.arrived) passwords")

            // Every other way a password drop is refused, each with a password that would be hashed.
            let password = #"{"kind":"password","password":"river"}"#
            let refusals: [(body: String, status: Int, field: String?)] = [
                (#"{"text":"","conditions":[\#(password)]}"#, 422, "text"),
                (#"{"text":"\u200B","conditions":[\#(password)]}"#, 422, "text"),
                (#"{"text":"hi","hint":"\#(String(repeating: "h", count: 201))","conditions":[\#(password)]}"#, 422, "hint"),
                (#"{"text":"hi","lifetimeSeconds":10,"conditions":[\#(password)]}"#, 422, "lifetime"),
                (#"{"text":"hi","conditions":[\#(password),{"kind":"timeOfDay","start":"25:00","end":"06:00"}]}"#, 422, "conditions.timeOfDay.start"),
                (#"{"text":"hi","conditions":[{"kind":"password","password":"\#(String(repeating: "p", count: 129))"}]}"#, 422, "password"),
                (#"{"text":"hi","placement":"manual","to":"elsewhere","conditions":[\#(password)]}"#, 422, "placement"),
                (#"{"text":"hi","placement":"sideways","conditions":[\#(password)]}"#, 422, "placement"),
                (#"{"text":"hi","conditions":[\#(Array(repeating: password, count: 17).joined(separator: ","))]}"#, 422, "conditions"),
                (#"{"text":"hi","conditions":[\#(password)],"oneShot":"yes"}"#, 400, nil),
            ]
            for refusal in refusals {
                let reply = try await client.post("/api/v1/bottles", token: creator, json: refusal.body)
                let error = ErrorShape.expect(reply, status: refusal.status, code: refusal.status == 400 ? "bad_request" : "invalid")
                if let field = refusal.field { #expect(error["details"]["field"].string == field, "\(reply)") }
            }
            ErrorShape.expect(try await client.post("/api/v1/bottles", json: Self.protected), status: 401, code: "unauthorized")
            ErrorShape.expect(try await client.send(.post, "/api/v1/bottles", token: creator, body: Array(Self.protected.utf8),
                                                    contentType: "text/plain"), status: 415, code: "unsupported_media_type")
            #expect(gate.arrived == 0, "refused drops hashed \(gate.arrived) passwords")

            // Edits: refused ones hash nothing; keeping the password hashes nothing either.
            let id = try await harness.createBottleID(creator, json: Self.protected)
            #expect(gate.arrived == 1, "a good drop hashes its password once")
            let stranger = try await harness.newVisitor()
            ErrorShape.expect(try await client.send(.patch, "/api/v1/bottles/\(id)", token: creator, json: Self.passwords(2)),
                              status: 422, code: "invalid")
            ErrorShape.expect(try await client.send(.patch, "/api/v1/bottles/\(id)", token: stranger, json: Self.protected),
                              status: 403, code: "forbidden")
            let kept = try await client.send(.patch, "/api/v1/bottles/\(id)", token: creator,
                                             json: #"{"text":"under the old stone","conditions":[{"kind":"password"}]}"#)
            #expect(kept.code == 200, "\(kept)")
            #expect(gate.arrived == 1, "refused or password-keeping edits hashed \(gate.arrived - 1) passwords")
            let changed = try await client.send(.patch, "/api/v1/bottles/\(id)", token: creator,
                                                json: #"{"text":"under the old stone","conditions":[{"kind":"password","password":"lake"}]}"#)
            #expect(changed.code == 200, "\(changed)")
            #expect(gate.arrived == 2)

            // Guesses: none is verified while other conditions fail or without a password.
            let waiting = try await harness.createBottleID(
                creator, json: #"{"text":"tomorrow","conditions":[{"kind":"password","password":"river"},{"kind":"delay","seconds":86400}]}"#)
            #expect(gate.arrived == 3)
            let visitor = try await harness.newVisitor()
            ErrorShape.expect(try await client.post("/api/v1/bottles/\(waiting)/open", token: visitor, json: #"{"password":"river"}"#),
                              status: 403, code: "locked")
            ErrorShape.expect(try await client.post("/api/v1/bottles/\(id)/open", token: visitor, json: "{}"), status: 403, code: "locked")
            #expect(gate.arrived == 3, "a guess that cannot open was verified")
            // The stored format and the check are unchanged: the edited password opens, once verified.
            try await harness.open(id, as: visitor, password: "lake")
            #expect(gate.arrived == 4)
            let counts = harness.processor.passwordHashing.current
            #expect(counts.hashed == 3 && counts.verified == 1 && counts.refused == 0, "\(counts)")
        }
    }

    @Test("while every hashing thread is held, other visitors' lists, bottles, opens and chat are answered")
    func stormDoesNotHoldOthers() async throws {
        let gate = ThreadGate(open: true)
        try await APIHarness.run(Self.options(gate, threads: 2, waiting: 4)) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let bystander = try await harness.newVisitor()
            let plain = try await harness.createBottleID(creator)
            try await harness.open(plain, as: bystander)
            let locked = try await harness.createBottleID(creator, json: Self.protected)
            let other = try await harness.createBottleID(creator, json: #"{"text":"no lock"}"#)
            let before = gate.arrived
            gate.close()
            defer { gate.open() }

            // A storm: 4 password drops and 2 guesses take both threads and every place in the queue.
            let droppers = try await (0..<4).asyncMap { _ in try await harness.newVisitor() }
            let guessers = try await (0..<2).asyncMap { _ in try await harness.newVisitor() }
            try await withThrowingTaskGroup(of: (String, Int).self) { storm in
                for (index, dropper) in droppers.enumerated() {
                    storm.addTask {
                        let reply = try await client.post("/api/v1/bottles", token: dropper,
                                                          json: #"{"text":"storm \#(index)","conditions":[{"kind":"password","password":"p\#(index)"}]}"#)
                        return ("drop", reply.code)
                    }
                }
                for guesser in guessers {
                    storm.addTask {
                        let reply = try await client.post("/api/v1/bottles/\(locked)/open", token: guesser, json: #"{"password":"river"}"#)
                        return ("guess", reply.code)
                    }
                }
                await gate.waitForArrivals(before + 2)
                let queued = await APIHarness.eventually { harness.processor.passwordHashing.current.waiting == 4 }
                #expect(queued, "the queue never filled: \(harness.processor.passwordHashing.current)")

                // The gate is closed and both threads are held: everyone else is served now.
                let list = try await client.get("/api/v1/bottles", token: bystander)
                #expect(list.code == 200, "\(list)")
                #expect(list.json["bottles"].array?.contains { $0["id"].string == plain } == true, "\(list)")
                #expect(try await harness.bottle(locked, as: bystander).code == 200)
                #expect(try await client.post("/api/v1/bottles/\(other)/open", token: bystander, json: "{}").code == 200)
                let line = try await client.post("/api/v1/bottles/\(plain)/messages", token: bystander,
                                                 json: #"{"text":"still here","language":"en"}"#)
                #expect(line.code == 201, "\(line)")
                let lines = try await client.get("/api/v1/bottles/\(plain)/messages", token: creator)
                #expect(lines.json["messages"].array?.contains { $0["text"].string == "still here" } == true, "\(lines)")
                _ = try await harness.newVisitor()
                #expect(gate.held == 2 && gate.releasedByLimit == 0, "answered only once the gate let go")

                gate.open()
                var answers: [String: [Int]] = [:]
                for try await (kind, code) in storm { answers[kind, default: []].append(code) }
                #expect(answers["drop"] == [201, 201, 201, 201], "\(answers)")
                #expect(answers["guess"] == [200, 200], "\(answers)")
            }
            let counts = harness.processor.passwordHashing.current
            #expect(counts.refused == 0 && counts.running == 0 && counts.waiting == 0, "\(counts)")
            #expect(gate.arrived == before + 6)
        }
    }

    @Test("with both threads held and the queue full, the next password drop, edit or guess is 503 busy, counted, and not charged")
    func fullQueueIsBusy() async throws {
        let gate = ThreadGate(open: true)
        var options = Self.options(gate, threads: 1, waiting: 1)
        // One admitted guess per visitor and bottle: a busy answer must not use it up.
        options.passwordLimits.perVisitorPerBottle = .init(attempts: 1, window: 300)
        let document = try OpenAPIDocument.load()
        try await APIHarness.run(options) { harness in
            let client = harness.client
            let creator = try await harness.newVisitor()
            let locked = try await harness.createBottleID(creator, json: Self.protected)
            let guesser = try await harness.newVisitor()
            let before = gate.arrived
            gate.close()
            defer { gate.open() }

            try await withThrowingTaskGroup(of: Int.self) { held in
                for index in 0..<2 {
                    held.addTask {
                        try await client.post("/api/v1/bottles", token: creator,
                                              json: #"{"text":"held \#(index)","conditions":[{"kind":"password","password":"p\#(index)"}]}"#).code
                    }
                }
                await gate.waitForArrivals(before + 1)
                let queued = await APIHarness.eventually { harness.processor.passwordHashing.current.waiting == 1 }
                #expect(queued, "the queue never filled: \(harness.processor.passwordHashing.current)")

                let drop = try await client.post("/api/v1/bottles", token: creator, json: Self.protected)
                Self.expectBusy(drop)
                document.expect(drop, .post, "/api/v1/bottles", status: 503)
                let edit = try await client.send(.patch, "/api/v1/bottles/\(locked)", token: creator, json: Self.protected)
                Self.expectBusy(edit)
                document.expect(edit, .patch, "/api/v1/bottles/{id}", status: 503)
                let guess = try await client.post("/api/v1/bottles/\(locked)/open", token: guesser, json: #"{"password":"river"}"#)
                Self.expectBusy(guess)
                document.expect(guess, .post, "/api/v1/bottles/{id}/open", status: 503)
                // Without a password to hash, a drop is taken as ever.
                #expect(try await client.post("/api/v1/bottles", token: creator, json: #"{"text":"plain"}"#).code == 201)
                #expect(harness.processor.passwordHashing.current.refused == 3)

                gate.open()
                var codes: [Int] = []
                for try await code in held { codes.append(code) }
                #expect(codes == [201, 201])
            }
            // The refused guess was not counted: the one allowed attempt still opens.
            try await harness.open(locked, as: guesser, password: "river")
            #expect(gate.arrived == before + 3)
        }
    }

    static func expectBusy(_ reply: HTTPReply, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = ErrorShape.expect(reply, status: 503, code: "busy", sourceLocation: sourceLocation)
        let retry = reply.headers[.retryAfter].flatMap(Int.init)
        #expect(retry != nil && retry! >= 1, "Retry-After: \(reply.headers)", sourceLocation: sourceLocation)
        #expect(error["details"]["retryAfterSeconds"].int == retry, "\(reply)", sourceLocation: sourceLocation)
    }
}

extension Sequence where Element: Sendable {
    /// `map` with an async transform, one element after another.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
