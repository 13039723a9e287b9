import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

@Suite("Presence grace: opening over HTTP counts as present only for a while")
struct PresenceGraceTests {
    @Test("opened over HTTP with no live socket: after the grace the chat goes dying, then the bottle is gone")
    func graceEnds() async throws {
        try await APIHarness.run(.init(survival: SurvivalPolicy(lifespan: 3600, countdown: 4), presenceGrace: 1)) { harness in
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            let opened = try await harness.open(id, as: visitor)
            #expect(opened["chat"]["state"].string == "active")
            #expect(opened["chat"]["deadline"].isMissing || opened["chat"]["deadline"].isNull)
            var seen = JSON.missing
            #expect(try await APIHarness.eventually(timeout: .seconds(20), every: .milliseconds(50)) {
                let reply = try await harness.bottle(id, as: visitor)
                seen = reply.json
                return reply.json["chat"]["state"].string == "dying" || reply.code == 404
            })
            if seen["state"].exists {
                #expect(seen["state"].string == "dying")
                #expect(seen["chat"]["deadline"].string != nil, "\(seen)")
            }
            #expect(try await APIHarness.eventually { try await harness.bottle(id, as: visitor).code == 404 })
        }
    }

    @Test("a live socket within the grace keeps the chat active")
    func socketTakesOver() async throws {
        try await APIHarness.run(.init(presenceGrace: 1)) { harness in
            let creator = try await harness.newVisitor()
            let visitor = try await harness.newVisitor()
            let id = try await harness.createBottleID(creator)
            try await harness.open(id, as: visitor)
            let socket = try await harness.chatSocket(id, as: visitor)
            #expect(await socket.first(type: "hello") != nil)
            try await Task.sleep(for: .seconds(3))
            let view = try await harness.bottle(id, as: visitor)
            #expect(view.json["chat"]["state"].string == "active", "\(view)")
            await socket.closeAndWait()
        }
    }
}
