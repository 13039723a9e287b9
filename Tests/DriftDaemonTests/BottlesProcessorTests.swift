import DriftConfig
import DriftCore
@testable import DriftDaemon
import DriftStore
import Foundation
import TestSupport
import Testing

/// The lifecycle processor driven with explicit times (no sleeping).
@Suite("Bottle lifecycle processor")
struct BottlesProcessorTests {
    let start = BottlesFixtures.start

    @Test("a locked bottle becomes openable when its conditions are met, and watchers are told")
    func becomesOpenable() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try harness.create(id, conditions: [BottleCondition(.delay(UnlockDelay(seconds: 3600)))])
        try harness.store.watch(id, by: BottlesFixtures.alice, at: start)

        let early = await harness.processor.process(now: start.addingTimeInterval(600))
        #expect(early.transitions.isEmpty)
        #expect(try harness.store.bottle(id)?.state == .locked)
        #expect(await harness.takeKinds() == [])

        let due = start.addingTimeInterval(3600)
        let report = await harness.processor.process(now: due)
        #expect(report.transitions == [.init(bottle: id, trigger: .conditionsMet, at: due)])
        #expect(try harness.store.bottle(id)?.state == .openable)
        #expect(try harness.store.openable().map(\.id) == [id])
        #expect(await harness.takeEvents() == [DriftEvent(bottle: id, at: due, kind: .becameOpenable)])
        // Kept for watchers who are not connected right now.
        #expect(try harness.store.pendingEvents(of: id, for: .watchers).map(\.event.kind) == [.becameOpenable])
        // Nothing changes on the next tick.
        #expect(await harness.processor.process(now: due.addingTimeInterval(1)).transitions.isEmpty)
    }

    @Test("an openable bottle locks again when its window closes")
    func relocks() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        // 22:00–04:00 in Berlin (UTC+2 in June).
        try harness.create(id, conditions: [BottleCondition(.timeOfDay(TimeOfDayWindow(start: (22, 0), end: (4, 0))))])
        let night = BottlesFixtures.date("2024-06-01T21:00:00Z")
        let morning = BottlesFixtures.date("2024-06-02T03:00:00Z")
        await harness.processor.process(now: start)
        #expect(try harness.store.bottle(id)?.state == .locked)
        await harness.processor.process(now: night)
        #expect(try harness.store.bottle(id)?.state == .openable)
        await harness.processor.process(now: morning)
        #expect(try harness.store.bottle(id)?.state == .locked)
        #expect(await harness.takeKinds() == [.becameOpenable, .locked])
    }

    @Test("a GPS input re-evaluates at once: a box-position bottle opens with a good fix and relocks without one")
    func gpsInput() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try harness.create(id, conditions: [BottleCondition(.boxPosition(BoxPositionCondition(center: BottlesFixtures.berlin, radiusMeters: 100)))])
        await harness.processor.process(now: start)
        #expect(try harness.store.bottle(id)?.state == .locked)  // no receiver: unknown, never satisfied

        let report = await harness.processor.ingest(.gps(BottlesFixtures.goodFix(at: start.addingTimeInterval(5))), now: start.addingTimeInterval(6))
        #expect(report.transitions.map(\.trigger) == [.conditionsMet])
        // The fix goes stale (10 min): the next tick relocks it.
        await harness.processor.process(now: start.addingTimeInterval(5 + 601))
        #expect(try harness.store.bottle(id)?.state == .locked)
        #expect(await harness.takeKinds() == [.becameOpenable, .locked])
        // A button press is not an ambient input: no evaluation.
        #expect(await harness.processor.ingest(.buttonPressed(at: start.addingTimeInterval(700)), now: start.addingTimeInterval(700)).transitions.isEmpty)
    }

    @Test("gps.max_fix_age_s decides when a lost fix stops holding a position condition (30 s, not 10 min)")
    func maxFixAgeFromConfig() async throws {
        let config = try ConfigLoader(systemBoardDirectories: []).load(
            text: DriftConfiguration.embeddedDefaultText.replacingOccurrences(of: "max_fix_age_s = 30", with: "max_fix_age_s = 45"),
            fileName: "driftd.toml", baseDirectory: nil).configuration
        var settings = BottlesFixtures.settings
        settings.limits = Daemon.conditionLimits(config)
        #expect(settings.limits.maximumFixAge == 45 && settings.limits.maximumHDOP == config.gps.maxHDOP)
        var harness = try await BottlesHarness(settings: settings)
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try harness.create(id, conditions: [BottleCondition(.boxPosition(BoxPositionCondition(center: BottlesFixtures.berlin, radiusMeters: 100)))])
        await harness.processor.ingest(.gps(BottlesFixtures.goodFix(at: start.addingTimeInterval(5))), now: start.addingTimeInterval(5))
        #expect(try harness.store.bottle(id)?.state == .openable)
        await harness.processor.process(now: start.addingTimeInterval(5 + 45))
        #expect(try harness.store.bottle(id)?.state == .openable, "45 s old still counts")
        await harness.processor.process(now: start.addingTimeInterval(5 + 46))
        #expect(try harness.store.bottle(id)?.state == .locked, "an older fix counts as no fix")
        #expect(await harness.takeKinds() == [.becameOpenable, .locked])
    }

    @Test("dying countdown: the last one leaves, 30 s pass, the bottle expires and is erased")
    func countdownExpiresAndErases() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try harness.create(id)
        await harness.processor.process(now: start)
        try harness.media.write(Array("content".utf8), to: try MediaPath.content(bottle: id, fileName: "x.png"))
        let opened = start.addingTimeInterval(60)
        let decision = try await harness.processor.open(id, visitor: BottlesFixtures.alice, password: nil, at: opened)
        #expect(decision.isOpen)
        let alice = harness.participant(BottlesFixtures.alice, in: id)
        #expect(try harness.store.bottle(id)?.state == .active)
        #expect(try harness.store.bottle(id)?.firstOpener == alice)
        let lineID = MessageID.make(at: opened)
        try await harness.processor.post(try ChatMessage.make(id: lineID, bottle: id, participant: alice,
                                                              sentAt: opened.addingTimeInterval(1), text: "hi", language: "en"))

        let left = opened.addingTimeInterval(120)
        await harness.processor.leave(alice, in: id, at: left)
        #expect(try harness.store.bottle(id)?.state == .dying)
        #expect(await harness.processor.process(now: left.addingTimeInterval(29.9)).transitions.isEmpty)
        #expect(try harness.store.bottle(id)?.state == .dying)

        let report = await harness.processor.process(now: left.addingTimeInterval(31))
        #expect(report.transitions == [.init(bottle: id, trigger: .countdownEnded, at: left.addingTimeInterval(30))])
        #expect(report.erased == [id])
        #expect(try harness.store.bottle(id) == nil)
        #expect(try harness.store.messageCount(in: id) == 0)
        #expect(!FileManager.default.fileExists(atPath: harness.media.folderPath(of: id)))
        let events = await harness.takeEvents()
        #expect(events.map(\.kind) == [
            .becameOpenable, .firstOpen(distanceTravelledMeters: 0), .linePosted(lineID, by: alice),
            .linesWhileAway(count: 1), .dying(deadline: left.addingTimeInterval(30)), .expired(reason: .countdownEnded),
        ])
        #expect(events.last?.at == left.addingTimeInterval(30))
        #expect(await harness.processor.survival(of: id) == nil)
    }

    @Test("Keep Alive during the countdown saves the chat and holds it for the lifespan")
    func keepAliveSaves() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try harness.create(id)
        await harness.processor.process(now: start)
        _ = try await harness.processor.open(id, visitor: BottlesFixtures.alice, password: nil, at: start)
        let alice = harness.participant(BottlesFixtures.alice, in: id)
        let left = start.addingTimeInterval(10)
        await harness.processor.leave(alice, in: id, at: left)
        let claimed = left.addingTimeInterval(20)
        try await harness.processor.claimKeepAlive(alice, in: id, at: claimed)
        #expect(try harness.store.bottle(id)?.state == .active)

        // Well past the old countdown: still alive, held by the keeper.
        #expect(await harness.processor.process(now: left.addingTimeInterval(300)).transitions.isEmpty)
        #expect(try harness.store.bottle(id)?.state == .active)
        #expect(try harness.store.survival(of: id)?.keeper?.participant == alice)
        // The hold ends one lifespan after the claim; the countdown starts at that instant.
        let holdEnd = claimed.addingTimeInterval(3600)
        let report = await harness.processor.process(now: holdEnd.addingTimeInterval(5))
        #expect(report.transitions == [.init(bottle: id, trigger: .countdownStarted, at: holdEnd)])
        #expect(try harness.store.bottle(id)?.state == .dying)
        await harness.processor.process(now: holdEnd.addingTimeInterval(30))
        #expect(try harness.store.bottle(id) == nil)
        #expect(await harness.takeKinds() == [
            .becameOpenable, .firstOpen(distanceTravelledMeters: 0), .dying(deadline: left.addingTimeInterval(30)),
            .rescued(keeper: alice), .dying(deadline: holdEnd.addingTimeInterval(30)), .expired(reason: .countdownEnded),
        ])
    }

    @Test("re-entry during the countdown, and the box button bound to a visitor, rescue the chat")
    func reentryAndButton() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try harness.create(id)
        await harness.processor.process(now: start)
        _ = try await harness.processor.open(id, visitor: BottlesFixtures.alice, password: nil, at: start)
        let alice = harness.participant(BottlesFixtures.alice, in: id)
        let bob = harness.participant(BottlesFixtures.bob, in: id)
        _ = try await harness.processor.open(id, visitor: BottlesFixtures.bob, password: nil, at: start.addingTimeInterval(5))
        await harness.processor.leave(alice, in: id, at: start.addingTimeInterval(10))
        #expect(try harness.store.bottle(id)?.state == .active)  // Bob is still inside
        await harness.processor.leave(bob, in: id, at: start.addingTimeInterval(20))
        #expect(try harness.store.bottle(id)?.state == .dying)
        try await harness.processor.enter(alice, in: id, at: start.addingTimeInterval(40))
        #expect(try harness.store.bottle(id)?.state == .active)
        #expect(try harness.store.participants(of: id).map(\.participant) == [alice, bob])

        // Alice leaves again: countdown; Bob asks for a presence check and presses the box's button.
        // Her keeper hold (from the re-entry) ends one lifespan after she left: 50 s + 1 h.
        await harness.processor.leave(alice, in: id, at: start.addingTimeInterval(50))
        await harness.processor.process(now: start.addingTimeInterval(3660))
        #expect(try harness.store.bottle(id)?.state == .dying)
        let asked = try await harness.processor.requestPresence(visitor: BottlesFixtures.bob, bottle: id, at: start.addingTimeInterval(3661))
        for press in 0..<asked.presses {
            let at = start.addingTimeInterval(3663 + Double(press))
            await harness.processor.ingest(.buttonPressed(at: at), now: at)
        }
        #expect(try harness.store.bottle(id)?.state == .dying, "the burst has not ended yet")
        let lastPress = start.addingTimeInterval(3663 + Double(asked.presses - 1))
        #expect(await harness.processor.presenceDeadline == lastPress.addingTimeInterval(2.5))
        await harness.processor.process(now: lastPress.addingTimeInterval(2.5))
        #expect(try harness.store.bottle(id)?.state == .active)
        #expect(await harness.processor.survival(of: id)?.keeper?.participant == bob)
        let kinds = await harness.takeKinds()
        #expect(kinds.filter { if case .rescued = $0 { true } else { false } } == [.rescued(keeper: alice), .rescued(keeper: bob)])
        #expect(kinds.contains(.participantJoined(bob)))
    }

    @Test("hard expiry ends a chat even with people inside, and an unopened bottle at its expiry")
    func hardExpiry() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let opened = BottlesFixtures.bottleID(1)
        let unopened = BottlesFixtures.bottleID(2)
        try harness.create(opened, lifetime: 3600)
        try harness.create(unopened, conditions: [BottleCondition(.delay(UnlockDelay(seconds: 86_400)))], lifetime: 1800)
        await harness.processor.process(now: start)
        _ = try await harness.processor.open(opened, visitor: BottlesFixtures.alice, password: nil, at: start.addingTimeInterval(10))

        let report1 = await harness.processor.process(now: start.addingTimeInterval(1800))
        #expect(report1.transitions == [.init(bottle: unopened, trigger: .hardExpiry, at: start.addingTimeInterval(1800))])
        #expect(report1.erased == [unopened])
        let report2 = await harness.processor.process(now: start.addingTimeInterval(3600.5))
        #expect(report2.transitions == [.init(bottle: opened, trigger: .hardExpiry, at: start.addingTimeInterval(3600))])
        #expect(try harness.store.allIDs().isEmpty)
        let expiries = await harness.takeEvents().filter(\.isExpiry)
        #expect(expiries.map(\.bottle) == [unopened, opened])
        #expect(expiries.map(\.kind) == [.expired(reason: .hardExpiry), .expired(reason: .hardExpiry)])
    }

    @Test("one-shot: only its first reader gets in, and the bottle ends when they leave")
    func oneShot() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try harness.create(id, oneShot: true)
        await harness.processor.process(now: start)
        #expect(try await harness.processor.open(id, visitor: BottlesFixtures.alice, password: nil, at: start).isOpen)
        let denied = try await harness.processor.open(id, visitor: BottlesFixtures.bob, password: nil, at: start.addingTimeInterval(5))
        #expect(!denied.isOpen)
        #expect(denied.reasons.contains("already opened by someone else"))
        let alice = harness.participant(BottlesFixtures.alice, in: id)
        await #expect(throws: SurvivalError.oneShot) {
            try await harness.processor.claimKeepAlive(alice, in: id, at: start.addingTimeInterval(6))
        }
        await harness.processor.leave(alice, in: id, at: start.addingTimeInterval(60))
        #expect(try harness.store.bottle(id) == nil)
        #expect(await harness.takeEvents().last == DriftEvent(bottle: id, at: start.addingTimeInterval(60), kind: .expired(reason: .oneShotConsumed)))
    }

    @Test("passwords are checked at open; the creator can retire a bottle, which erases it")
    func passwordAndRetire() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        let hash = try PasswordHasher(iterations: 1_000).hash("ebbe")
        try harness.create(id, conditions: [BottleCondition(.password(hash))])
        await harness.processor.process(now: start)
        #expect(try harness.store.bottle(id)?.state == .openable)  // a password is not ambient
        let wrong = try await harness.processor.open(id, visitor: BottlesFixtures.alice, password: "flut", at: start)
        #expect(wrong.reasons == ["wrong password"])

        let other = BottlesFixtures.bottleID(2)
        try harness.create(other)
        await #expect(throws: BottleStoreError.lifecycle(other, .notCreator)) {
            try await harness.processor.retire(other, by: BottlesFixtures.alice, at: start)
        }
        try await harness.processor.retire(other, by: BottlesFixtures.creator, at: start.addingTimeInterval(1))
        #expect(try harness.store.bottle(other) == nil)
        #expect(try await harness.processor.open(id, visitor: BottlesFixtures.alice, password: "ebbe", at: start.addingTimeInterval(2)).isOpen)
        let kinds = await harness.takeKinds()
        #expect(kinds.contains(.expired(reason: .retired)))
        #expect(kinds.last == .firstOpen(distanceTravelledMeters: 0))
    }

    @Test("lines posted while the creator is away reach the creator, rate-limited")
    func creatorNotifications() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try harness.create(id)
        await harness.processor.process(now: start)
        _ = try await harness.processor.open(id, visitor: BottlesFixtures.alice, password: nil, at: start)
        let alice = harness.participant(BottlesFixtures.alice, in: id)
        var generator = BottlesGenerator(seed: 4)
        for second in 1...3 {
            let at = start.addingTimeInterval(Double(second))
            try await harness.processor.post(try ChatMessage.make(id: MessageID.make(at: at, using: &generator), bottle: id,
                                                                  participant: alice, sentAt: at, text: "line \(second)", language: "en"))
        }
        let away = await harness.takeKinds().filter { if case .linesWhileAway = $0 { true } else { false } }
        #expect(away == [.linesWhileAway(count: 1)])
        // After the interval the held lines are released by a tick.
        await harness.processor.process(now: start.addingTimeInterval(901))
        #expect(await harness.takeKinds() == [.linesWhileAway(count: 2)])
        #expect(try harness.store.pendingEvents(of: id, for: .creator).count == 3)  // firstOpen + two line notices
    }

    @Test("a bottle stored as expired by another path is erased on the next tick")
    func leftoverExpiredErased() async throws {
        let harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try harness.create(id)
        try harness.media.write([7], to: try MediaPath.content(bottle: id, fileName: "a.png"))
        try harness.store.retire(id, by: BottlesFixtures.creator, at: start)
        let report = await harness.processor.process(now: start.addingTimeInterval(1))
        #expect(report.erased == [id])
        #expect(try harness.store.bottle(id) == nil)
        #expect(harness.media.bottleFolders().isEmpty)
        #expect(await harness.processor.process(now: start.addingTimeInterval(2)).erased.isEmpty)
    }

    @Test("restart: a countdown that ended while the daemon was down ends at start-up, then the bottle is erased")
    func restartEndsCountdown() async throws {
        let directory = try TemporaryDirectory(prefix: "bottles-restart")
        defer { directory.remove() }
        let id = BottlesFixtures.bottleID(1)
        let left = start.addingTimeInterval(120)
        do {
            let harness = try await BottlesHarness(directory: directory)
            try harness.create(id)
            await harness.processor.process(now: start)
            _ = try await harness.processor.open(id, visitor: BottlesFixtures.alice, password: nil, at: start.addingTimeInterval(60))
            await harness.processor.leave(harness.participant(BottlesFixtures.alice, in: id), in: id, at: left)
            #expect(try harness.store.bottle(id)?.state == .dying)
            // The daemon dies here (nothing else is written).
        }
        var restarted = try await BottlesHarness(directory: directory)
        #expect(try restarted.store.bottle(id)?.state == .dying)
        let report = await restarted.processor.start(now: left.addingTimeInterval(600))
        #expect(report.transitions == [.init(bottle: id, trigger: .countdownEnded, at: left.addingTimeInterval(30))])
        #expect(report.erased == [id])
        #expect(try restarted.store.bottle(id) == nil)
        #expect(await restarted.takeEvents() == [DriftEvent(bottle: id, at: left.addingTimeInterval(30), kind: .expired(reason: .countdownEnded))])
    }

    @Test("restart: someone inside when the daemon died counts as gone since last seen; a short outage leaves the chat dying")
    func restartWithPresence() async throws {
        let directory = try TemporaryDirectory(prefix: "bottles-restart")
        defer { directory.remove() }
        let id = BottlesFixtures.bottleID(1)
        let opened = start.addingTimeInterval(60)
        do {
            let harness = try await BottlesHarness(directory: directory)
            try harness.create(id)
            await harness.processor.process(now: start)
            _ = try await harness.processor.open(id, visitor: BottlesFixtures.alice, password: nil, at: opened)
            // Ticks while Alice is inside persist when she was last seen (every 5 s).
            for second in 1...12 { await harness.processor.process(now: opened.addingTimeInterval(Double(second))) }
        }
        let lastSeen = try #require(try BottleStore(database: try DriftDatabase.open(path: directory.appending("drift.sqlite"))).survival(of: id)?.presenceSeenAt)
        #expect(lastSeen == opened.addingTimeInterval(10))

        var restarted = try await BottlesHarness(directory: directory)
        let report = await restarted.processor.start(now: lastSeen.addingTimeInterval(12))
        #expect(report.transitions == [.init(bottle: id, trigger: .countdownStarted, at: lastSeen)])
        #expect(try restarted.store.bottle(id)?.state == .dying)
        // Alice reconnects in time and rescues it.
        let alice = restarted.participant(BottlesFixtures.alice, in: id)
        try await restarted.processor.enter(alice, in: id, at: lastSeen.addingTimeInterval(20))
        #expect(try restarted.store.bottle(id)?.state == .active)
        #expect(await restarted.takeKinds() == [.dying(deadline: lastSeen.addingTimeInterval(30)), .rescued(keeper: alice)])
    }

    @Test("start-up finishes an erase interrupted after the bottle was marked expired")
    func restartFinishesErase() async throws {
        let directory = try TemporaryDirectory(prefix: "bottles-restart")
        defer { directory.remove() }
        let id = BottlesFixtures.bottleID(1)
        do {
            let harness = try await BottlesHarness(directory: directory)
            try harness.create(id)
            try harness.media.write([1, 2, 3], to: try MediaPath.content(bottle: id, fileName: "a.png"))
            try harness.store.retire(id, by: BottlesFixtures.creator, at: start)  // died before erasing
        }
        let restarted = try await BottlesHarness(directory: directory)
        await restarted.processor.start(now: start.addingTimeInterval(5))
        #expect(try restarted.store.bottle(id) == nil)
        #expect(restarted.media.bottleFolders().isEmpty)
    }
}

@Suite("The box's keep-alive button")
struct KeepAliveButtonTests {
    let start = BottlesFixtures.start

    @Test("a press saves every dying chat at the box, with the box as keeper; nothing dying, nothing happens")
    func boxKeepAlive() async throws {
        let harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(7)
        try harness.create(id)
        await harness.processor.process(now: start)
        #expect(await harness.processor.keepAliveFromBox(at: start).isEmpty)
        _ = try await harness.processor.open(id, visitor: BottlesFixtures.alice, password: nil, at: start)
        let alice = harness.participant(BottlesFixtures.alice, in: id)
        let left = start.addingTimeInterval(10)
        await harness.processor.leave(alice, in: id, at: left)
        #expect(try harness.store.bottle(id)?.state == .dying)
        await harness.processor.ingest(.keepAliveButtonPressed(at: left.addingTimeInterval(15)), now: left.addingTimeInterval(15))
        #expect(try harness.store.bottle(id)?.state == .active)
        let keeper = harness.participant(BottleProcessor.boxKeeper, in: id)
        #expect(try harness.store.survival(of: id)?.keeper?.participant == keeper)
        // Past the old 30 s countdown the chat is still alive.
        #expect(await harness.processor.process(now: left.addingTimeInterval(120)).transitions.isEmpty)
        #expect(try harness.store.bottle(id)?.state == .active)
    }
}
