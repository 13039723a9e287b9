import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

@Suite("Presence grace: opening over HTTP counts as present only for a while")
struct PresenceGraceTests {
    @Test("opened over HTTP with no live socket: after the grace the chat goes dying, then the bottle is gone")
    func graceEnds() async throws {
        // On the manual clock: the open is inside the grace however slow the machine is, and
        // the grace and the countdown end when the test moves time, not when the CPU allows.
        try await APIHarness.run(.init(survival: SurvivalPolicy(lifespan: 3600, countdown: 4), presenceGrace: 1, manualClock: true)) { harness in
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            let opened = try await harness.open(id, as: visitor)
            #expect(opened["chat"]["state"].string == "active")
            #expect(opened["chat"]["deadline"].isMissing || opened["chat"]["deadline"].isNull)
            // Past the grace: the hub's next sweep lets the visitor go and the chat is dying.
            try await harness.advance(by: 1.5)
            var seen = JSON.missing
            #expect(try await APIHarness.eventually(timeout: .seconds(20), every: .milliseconds(50)) {
                let reply = try await harness.bottle(id, as: visitor)
                seen = reply.json
                return reply.json["chat"]["state"].string == "dying"
            })
            #expect(seen["chat"]["deadline"].string != nil, "\(seen)")
            // Past the countdown: the bottle is gone.
            try await harness.advance(by: 5)
            #expect(try await APIHarness.eventually { try await harness.bottle(id, as: visitor).code == 404 })
        }
    }

    @Test("a live socket within the grace keeps the chat active")
    func socketTakesOver() async throws {
        // On the manual clock: the hub's sweeps past the grace run when the test moves time.
        try await APIHarness.run(.init(presenceGrace: 1, manualClock: true)) { harness in
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: visitor)
            let socket = try await harness.chatSocket(id, as: visitor)
            #expect(await socket.first(type: "hello") != nil)
            try await harness.advance(by: 3)
            try await harness.advance(by: 1)
            let view = try await harness.bottle(id, as: visitor)
            #expect(view.json["chat"]["state"].string == "active", "\(view)")
            await socket.closeAndWait()
        }
    }
}
