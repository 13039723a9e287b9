import DriftCore
import DriftDaemon
import DriftStore
import Foundation
import TestSupport
import Testing

/// The host's rules for visitors at other boxes (`docs/mesh-bottles.md`, "Who may join from
/// afar"): the same proofs a visitor here gives, checked by the host. Driven with explicit
/// times, no sleeping; the three-box run is `MeshBottleProcessTests`.
@Suite("Remote chat admission")
struct RemoteAdmissionTests {
    let start = BottlesFixtures.start
    static let far = try! BoxID("node-0a0b0c0d")
    static let otherFar = try! BoxID("node-0e0e0e0e")

    /// A bottle with `conditions`, opened here by the creator so its chat is live.
    func opened(_ harness: BottlesHarness, _ id: BottleID, conditions: [BottleCondition], oneShot: Bool = false) async throws {
        try harness.create(id, conditions: conditions, oneShot: oneShot)
        await harness.processor.process(now: start)
        let decision = try await harness.processor.open(id, visitor: BottlesFixtures.creator, password: nil, at: start)
        #expect(decision.isOpen, "\(decision.reasons)")
    }

    func remote(_ seed: UInt8) -> ParticipantID {
        try! ParticipantID(hex: String(repeating: String(format: "%02x", seed), count: ParticipantID.byteCount))
    }

    @Test("what a visitor elsewhere must bring follows the bottle's conditions")
    func access() throws {
        func bottle(_ conditions: [BottleCondition], oneShot: Bool = false) throws -> Bottle {
            let draft = BottleDraft(content: BottleContent(text: "x"), conditions: conditions, lifetime: 3_600, isOneShot: oneShot)
            return try Bottle.create(draft, id: BottlesFixtures.bottleID(1), shareCode: ShareCode.random(),
                                     origin: BottleOrigin(boxID: BottlesFixtures.boxID, position: nil, countryCode: nil),
                                     creator: BottlesFixtures.creator, now: start)
        }
        let password = BottleCondition(.password(try PasswordHasher(iterations: 1_000).hash("kelp")))
        let presence = BottleCondition(.presence(PresenceCondition(withinSeconds: 60)))
        let delay = BottleCondition(.delay(UnlockDelay(seconds: 60)))
        #expect(RemoteAccess(try bottle([])) == .open)
        #expect(RemoteAccess(try bottle([delay])) == .open)
        #expect(RemoteAccess(try bottle([password, delay])) == .password)
        #expect(RemoteAccess(try bottle([presence])) == .inPersonOnly)
        #expect(RemoteAccess(try bottle([password, presence])) == .inPersonOnly)
        #expect(RemoteAccess(try bottle([], oneShot: true)) == .inPersonOnly)
    }

    @Test("password: refused without it or wrong, admitted with it; the same box stays admitted, another must give it again")
    func password() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try await opened(harness, id, conditions: [BottleCondition(.password(try PasswordHasher(iterations: 1_000).hash("kelp")))])
        let visitor = remote(1)
        let at = start.addingTimeInterval(5)
        #expect(await harness.processor.admitRemote(visitor, in: id, box: Self.far, label: .nearby, password: nil, at: at) == .refused(.passwordNeeded))
        #expect(await harness.processor.admitRemote(visitor, in: id, box: Self.far, label: .nearby, password: "sand", at: at) == .refused(.wrongPassword))
        #expect(!(try harness.store.participants(of: id)).contains { $0.participant == visitor })
        #expect(await harness.processor.admitRemote(visitor, in: id, box: Self.far, label: .nearby, password: "kelp", at: at) == .admitted)
        #expect(try harness.store.participants(of: id).contains { $0.participant == visitor && $0.box == Self.far })
        // Later words from the same box need no password again (also after the host restarts:
        // the admission is the stored participant).
        #expect(await harness.processor.admitRemote(visitor, in: id, box: Self.far, label: .nearby, password: nil, at: at) == .admitted)
        // The same pseudonym claimed through another box is a stranger there.
        #expect(await harness.processor.admitRemote(visitor, in: id, box: Self.otherFar, label: .nearby, password: nil, at: at) == .refused(.passwordNeeded))
        #expect(await harness.takeKinds().contains(.participantJoined(visitor)))
    }

    @Test("password guesses from afar go through the same limiter, per participant and per box")
    func passwordLimited() async throws {
        let harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try await opened(harness, id, conditions: [BottleCondition(.password(try PasswordHasher(iterations: 1_000).hash("kelp")))])
        let at = start.addingTimeInterval(5)
        for _ in 0..<5 {
            #expect(await harness.processor.admitRemote(remote(1), in: id, box: Self.far, label: .nearby, password: "sand", at: at) == .refused(.wrongPassword))
        }
        #expect(await harness.processor.admitRemote(remote(1), in: id, box: Self.far, label: .nearby, password: "kelp", at: at)
                == .refused(.tooManyAttempts(retryAfterSeconds: 300)))
        // Fresh pseudonyms through the same box: each gets one guess until the box has 10 wrong ones.
        for seed in 2...6 { _ = await harness.processor.admitRemote(remote(UInt8(seed)), in: id, box: Self.far, label: .nearby, password: "sand", at: at) }
        _ = await harness.processor.admitRemote(remote(7), in: id, box: Self.far, label: .nearby, password: "sand", at: at)
        #expect(await harness.processor.admitRemote(remote(7), in: id, box: Self.far, label: .nearby, password: "sand", at: at)
                == .refused(.tooManyAttempts(retryAfterSeconds: 300)))
        // A visitor who never guessed wrong is admitted at once, from that box or another.
        #expect(await harness.processor.admitRemote(remote(8), in: id, box: Self.far, label: .nearby, password: "kelp", at: at) == .admitted)
        #expect(await harness.processor.admitRemote(remote(9), in: id, box: Self.otherFar, label: .nearby, password: "kelp", at: at) == .admitted)
    }

    @Test("presence and one-shot bottles admit nobody from afar; an ended chat admits nobody")
    func inPersonOnly() async throws {
        let harness = try await BottlesHarness()
        defer { harness.remove() }
        let presence = BottlesFixtures.bottleID(1)
        let oneShot = BottlesFixtures.bottleID(2)
        try harness.create(presence, conditions: [BottleCondition(.presence(PresenceCondition(withinSeconds: 60)))])
        try await opened(harness, oneShot, conditions: [], oneShot: true)
        let at = start.addingTimeInterval(5)
        // The presence bottle was never opened here: its chat is not live, and even once it is, no.
        #expect(await harness.processor.admitRemote(remote(1), in: presence, box: Self.far, label: .nearby, password: nil, at: at) == .refused(.chatClosed))
        #expect(await harness.processor.admitRemote(remote(1), in: oneShot, box: Self.far, label: .nearby, password: nil, at: at) == .refused(.inPersonOnly))
        #expect(!(try harness.store.participants(of: oneShot)).contains { $0.participant == remote(1) })
        #expect(await harness.processor.admitRemote(remote(1), in: BottlesFixtures.bottleID(9), box: Self.far, label: .nearby, password: nil, at: at)
                == .refused(.chatClosed))
    }

    @Test("an open bottle admits a visitor elsewhere without proof")
    func openBottle() async throws {
        let harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try await opened(harness, id, conditions: [])
        #expect(await harness.processor.admitRemote(remote(1), in: id, box: Self.far, label: .global, password: nil, at: start.addingTimeInterval(5)) == .admitted)
    }
}
