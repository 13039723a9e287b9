import DriftCore
import DriftDaemon
import DriftStore
import Foundation
import Logging
import ServiceLifecycle
import TestSupport
import Testing

@Suite("Bottle lifecycle service")
struct BottlesServiceTests {
    /// A bottle that opens where the box is (Berlin, 50 m): it reads every GPS fix.
    static var here: BottleDraft {
        BottleDraft(content: BottleContent(text: "here"),
                    conditions: [BottleCondition(.boxPosition(BoxPositionCondition(center: BottlesFixtures.berlin, radiusMeters: 50)))])
    }

    /// A bottle that opens a minute after it was dropped: it reads no ambient input but the clock's.
    static var delayOnly: BottleDraft {
        BottleDraft(content: BottleContent(text: "a delay only"), conditions: [BottleCondition(.delay(UnlockDelay(seconds: 60)))])
    }

    /// Waits for the first event matching `predicate`, failing after `timeout`.
    static func first(_ stream: AsyncStream<DriftEvent>, timeout: Duration = .seconds(10),
                      where predicate: @escaping @Sendable (DriftEvent) -> Bool) async throws -> DriftEvent? {
        try await withThrowingTaskGroup(of: DriftEvent?.self) { group in
            group.addTask {
                for await event in stream where predicate(event) { return event }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let result = try await group.next() ?? nil
            group.cancelAll()
            return result
        }
    }

    @Test("in a service group: start-up resumes chats, an ambient input re-evaluates at once, graceful shutdown ends it")
    func runsAsService() async throws {
        let directory = try TemporaryDirectory(prefix: "bottles-service")
        defer { directory.remove() }
        let database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        let store = BottleStore(database: database)
        let now = Date()
        // A chat whose countdown ended while the daemon was down.
        let dying = BottlesFixtures.bottleID(1)
        _ = try store.create(BottleDraft(content: BottleContent(text: "old")), id: dying,
                             origin: BottleOrigin(boxID: BottlesFixtures.boxID, position: nil, countryCode: nil),
                             creator: BottlesFixtures.creator, now: now.addingTimeInterval(-600))
        let opener = ParticipantID(visitor: BottlesFixtures.alice, bottle: dying, secret: BottlesFixtures.secret)
        var (_, survival) = try store.recordFirstOpen(dying, by: opener, hostPosition: nil, at: now.addingTimeInterval(-500))
        let actions = survival.leave(opener, at: now.addingTimeInterval(-400))
        try store.commit(survival, actions: actions, of: dying, at: now.addingTimeInterval(-400))
        // A bottle that opens only near a point, with no GPS yet.
        let nearby = BottlesFixtures.bottleID(2)
        _ = try store.create(Self.here,
                             id: nearby, origin: BottleOrigin(boxID: BottlesFixtures.boxID, position: nil, countryCode: nil),
                             creator: BottlesFixtures.creator, now: now)

        let bus = EventBus()
        let events = await bus.subscribe()
        let (inputs, feed) = AsyncStream.makeStream(of: AmbientInput.self)
        let health = HealthRegistry()
        // A long tick: only start-up and the input can change anything during the test.
        let service = BottleLifecycleService(database: database, dataDirectory: directory.path, settings: BottlesFixtures.settings,
                                             events: bus, inputs: inputs, health: health, logger: Logger(label: "test"),
                                             interval: .seconds(3600))
        #expect(health.evaluate().components == ["bottles"])
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let expired = try await Self.first(events) { $0.isExpiry }
            #expect(expired == DriftEvent(bottle: dying, at: now.addingTimeInterval(-370), kind: .expired(reason: .countdownEnded)))
            #expect(try store.bottle(dying) == nil)

            feed.yield(.gps(BottlesFixtures.goodFix(at: Date())))
            let openable = try await Self.first(events) { $0.kind == .becameOpenable }
            #expect(openable?.bottle == nearby)
            #expect(try store.bottle(nearby)?.state == .openable)

            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(health.evaluate().components.isEmpty)
    }

    @Test("sleeps until the next deadline: a delay opens its bottle at that instant, a sooner one rings it awake, a chat's countdown ends on time, and nothing runs in between")
    func sleepsUntilDeadlines() async throws {
        let directory = try TemporaryDirectory(prefix: "bottles-deadlines")
        defer { directory.remove() }
        let database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        let store = BottleStore(database: database)
        let start = Date(timeIntervalSince1970: 1_717_236_000)   // 2024-06-01T10:00:00Z
        let clock = ManualClock()
        let now: @Sendable () -> Date = {
            let offset = clock.now.offset.components
            return start.addingTimeInterval(Double(offset.seconds) + Double(offset.attoseconds) / 1e18)
        }
        let origin = BottleOrigin(boxID: BottlesFixtures.boxID, position: nil, countryCode: nil)
        let later = BottlesFixtures.bottleID(1)
        _ = try store.create(BottleDraft(content: BottleContent(text: "in five minutes"), conditions: [BottleCondition(.delay(UnlockDelay(seconds: 300)))]),
                             id: later, origin: origin, creator: BottlesFixtures.creator, now: start)
        let bus = EventBus()
        let events = await bus.subscribe()
        let (inputs, _) = AsyncStream.makeStream(of: AmbientInput.self)
        // No sweep and a heartbeat far away: only deadlines wake it.
        let service = BottleLifecycleService(database: database, dataDirectory: directory.path, settings: BottlesFixtures.settings,
                                             events: bus, inputs: inputs, logger: Logger(label: "test"),
                                             interval: .seconds(86_400), heartbeat: .seconds(3600), clock: clock, now: now)
        let processor = service.processor
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await clock.waitForSleepers()
            #expect(clock.nextDeadline == ManualClock.Instant(offset: .seconds(300)), "asleep until the delay ends")

            // A bottle dropped now with a one-minute delay: the route's refresh rings the service.
            let sooner = BottlesFixtures.bottleID(2)
            _ = try store.create(BottleDraft(content: BottleContent(text: "in a minute"), conditions: [BottleCondition(.delay(UnlockDelay(seconds: 60)))]),
                                 id: sooner, origin: origin, creator: BottlesFixtures.creator, now: now())
            let begun = clock.sleepsBegun
            await processor.refresh(sooner, now: now())
            await clock.waitForSleepsBegun(begun + 1)
            #expect(clock.nextDeadline == ManualClock.Instant(offset: .seconds(60)), "woken, asleep until the sooner deadline")

            clock.advance(to: ManualClock.Instant(offset: .seconds(60)))
            let first = try await Self.first(events) { $0.kind == .becameOpenable }
            #expect(first == DriftEvent(bottle: sooner, at: start.addingTimeInterval(60), kind: .becameOpenable))
            #expect(await clock.run(until: { clock.nextDeadline == ManualClock.Instant(offset: .seconds(300)) }))
            #expect(try store.bottle(later)?.state == .locked, "nothing opened early")

            clock.advance(to: ManualClock.Instant(offset: .seconds(300)))
            let second = try await Self.first(events) { $0.kind == .becameOpenable }
            #expect(second == DriftEvent(bottle: later, at: start.addingTimeInterval(300), kind: .becameOpenable))

            // Opened and left: the chat's countdown end is the next deadline, met to the instant.
            let visitor = ParticipantID(visitor: BottlesFixtures.alice, bottle: later, secret: BottlesFixtures.secret)
            await clock.waitForSleepers()
            let asleep = clock.sleepsBegun
            _ = try await processor.open(later, visitor: BottlesFixtures.alice, password: nil, at: now())
            await processor.leave(visitor, in: later, at: now())
            // The open rang it (the presence refresh of an occupied chat comes sooner): let it settle.
            await clock.waitForSleepsBegun(asleep + 1)
            let countdown = try #require(await processor.survival(of: later)?.nextDeadline)
            let offset = Duration.milliseconds(Int64((countdown.timeIntervalSince(start) * 1000).rounded()))
            #expect(await clock.run(until: { clock.nextDeadline == ManualClock.Instant(offset: offset) }))
            clock.advance(to: ManualClock.Instant(offset: offset))
            let ended = try await Self.first(events) { $0.isExpiry }
            #expect(ended == DriftEvent(bottle: later, at: countdown, kind: .expired(reason: .countdownEnded)))
            #expect(try store.bottle(later) == nil)

            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("an input no unopened bottle reads (a GPS fix, with no position condition) starts no pass; one that is read does")
    func unreadInputsWakeNothing() async throws {
        let directory = try TemporaryDirectory(prefix: "bottles-needs")
        defer { directory.remove() }
        let database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        let store = BottleStore(database: database)
        let processor = BottleProcessor(database: database, dataDirectory: directory.path, settings: BottlesFixtures.settings,
                                        events: EventBus(), logger: Logger(label: "test"))
        let now = Date()
        let origin = BottleOrigin(boxID: BottlesFixtures.boxID, position: nil, countryCode: nil)
        _ = try store.create(Self.delayOnly,
                             id: BottlesFixtures.bottleID(1), origin: origin, creator: BottlesFixtures.creator, now: now)
        await processor.start(now: now)
        let fix = AmbientInput.gps(BottlesFixtures.goodFix(at: now))
        // The first fix gives the sun a position (no sun condition here either): no pass.
        #expect(await processor.ingest(fix, now: now).evaluated == 0)
        #expect(await processor.ingest(.reading(.temperature, SensorReading(time: now, value: 20)), now: now).evaluated == 0)
        #expect(await processor.ingest(.clockSynchronized(true), now: now).evaluated == 1, "the clock is read by every time condition")

        let nearby = BottlesFixtures.bottleID(2)
        _ = try store.create(Self.here,
                             id: nearby, origin: origin, creator: BottlesFixtures.creator, now: now)
        await processor.refresh(nearby, now: now)
        #expect(await processor.ingest(fix, now: now).evaluated == 2, "a position condition reads every fix")
        await processor.shutdown()
    }

    /// A processor over a fresh store with an ``AmbientGate`` between it and the box's inputs, and
    /// a bottle that reads no ambient input (a delay only) in the store.
    static func gated(now: Date) throws -> (TemporaryDirectory, BottleStore, AmbientGate, BottleProcessor) {
        let directory = try TemporaryDirectory(prefix: "bottles-gate")
        let database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        let store = BottleStore(database: database)
        let gate = AmbientGate(generation: { store.bottlesGeneration })
        let processor = BottleProcessor(database: database, dataDirectory: directory.path, settings: BottlesFixtures.settings,
                                        events: EventBus(), logger: Logger(label: "test"), gate: gate)
        _ = try store.create(Self.delayOnly,
                             id: BottlesFixtures.bottleID(1), origin: originHere, creator: BottlesFixtures.creator, now: now)
        return (directory, store, gate, processor)
    }

    /// Where the gated tests' bottles were dropped: this box, no position.
    static let originHere = BottleOrigin(boxID: BottlesFixtures.boxID, position: nil, countryCode: nil)

    /// The GPS woke the processor's thread at every fix, read or not (docs/performance.md, "Idle").
    @Test("the ambient gate holds GPS states back while no bottle reads them, yet the processor judges with the latest; a bottle that reads them, or bottles written around the processor, let them through")
    func gateHoldsUnreadFixes() async throws {
        let now = Date()
        let (directory, store, gate, processor) = try Self.gated(now: now)
        defer { directory.remove() }
        let origin = Self.originHere
        #expect(gate.admit(GPSState(receiverPresent: true, listeningSince: now)), "before the first pass every state counts")
        await processor.start(now: now)
        let fix = BottlesFixtures.goodFix(at: now)
        #expect(!gate.admit(fix), "no bottle reads the GPS: held back")
        #expect(gate.held == 1)
        #expect(await processor.ambient.gps == fix, "the processor judges with the latest state, held back or not")
        #expect(await processor.ambient.position(at: now, settings: BottlesFixtures.settings) == BottlesFixtures.berlin)

        // A bottle that opens where the box is, written around the processor: every state counts again.
        let nearby = BottlesFixtures.bottleID(2)
        _ = try store.create(Self.here,
                             id: nearby, origin: origin, creator: BottlesFixtures.creator, now: now)
        #expect(gate.admit(fix))
        // Its first judgement already has the fix that was held back.
        await processor.refresh(nearby, now: now)
        #expect(try store.bottle(nearby)?.state == .openable)
        _ = await processor.process(now: now)
        #expect(gate.admit(fix), "a position condition reads every fix")
        #expect(gate.held == 1)
        // An older state sent on after a newer one was recorded: the processor keeps the newer.
        let later = BottlesFixtures.goodFix(at: now.addingTimeInterval(10))
        #expect(gate.admit(later))
        _ = await processor.ingest(.gps(fix), now: now.addingTimeInterval(10))
        #expect(await processor.ambient.gps == later)
        await processor.shutdown()
    }

    /// A weather sample (three readings every 30 s) woke the processor's thread whether a bottle
    /// read the weather or not (docs/performance.md, "Idle"); its histories must stay whole.
    @Test("the ambient gate holds weather inputs back while no bottle reads the weather and loses none: they are applied in order before the next input and before a pass, so a rain bottle written later opens on tips held back")
    func gateHoldsUnreadWeather() async throws {
        let now = Date()
        let (directory, store, gate, processor) = try Self.gated(now: now)
        defer { directory.remove() }
        let origin = Self.originHere
        let gaugeStarted = AmbientInput.rainGaugeStarted(at: now.addingTimeInterval(-900))
        #expect(gate.admitWeather(gaugeStarted), "before the first pass every input counts")
        _ = await processor.ingest(gaugeStarted, now: now)
        await processor.start(now: now)

        // No bottle reads the weather: held, in order, and seen by the processor's judgements.
        let tips = [now.addingTimeInterval(-600), now.addingTimeInterval(-300)]
        for tip in tips { #expect(!gate.admitWeather(.rainTip(at: tip))) }
        #expect(!gate.admitWeather(.reading(.pressure, SensorReading(time: now, value: 1_013))))
        #expect(gate.heldWeather.count == 3)
        #expect(await processor.ambient.weather.rainGauge?.tips == tips, "the processor judges with what the gate holds")

        // An input sent on after held ones is applied after them: a restarted gauge clears the
        // tips before it, not the ones after it.
        let restart = now.addingTimeInterval(-450)
        #expect(!gate.admitWeather(.rainGaugeStarted(at: restart)))
        _ = await processor.ingest(.rainTip(at: now.addingTimeInterval(-60)), now: now)
        #expect(gate.heldWeather.isEmpty, "taken by the processor with the next input")
        #expect(await processor.ambient.weather.rainGauge?.tips == [now.addingTimeInterval(-60)])
        #expect(await processor.ambient.weather.pressure?.readings.map(\.value) == [1_013])

        // More tips held back, then a rain bottle written around the processor: every input counts
        // again, and its first judgement has the tip that was held (two since the restart, 2 × 0.2794 mm ≥ 0.5 mm).
        #expect(!gate.admitWeather(.rainTip(at: now.addingTimeInterval(-30))))
        let rain = BottlesFixtures.bottleID(2)
        let rainy = BottleDraft(content: BottleContent(text: "after the rain"),
                                conditions: [BottleCondition(.weather(.rain(RainCondition(withinMinutes: 30, minimumMillimetres: 0.5))))])
        _ = try store.create(rainy, id: rain, origin: origin, creator: BottlesFixtures.creator, now: now)
        #expect(gate.admitWeather(.reading(.pressure, SensorReading(time: now.addingTimeInterval(1), value: 1_012))))
        _ = await processor.process(now: now)
        #expect(try store.bottle(rain)?.state == .openable)
        #expect(gate.heldWeather.isEmpty)
        #expect(gate.admitWeather(.rainTip(at: now)), "a bottle reads the weather: sent on")

        // At most maximumHeldWeather wait; the next one is sent on, to wake the processor.
        #expect(try store.deleteRows(of: rain))
        _ = await processor.process(now: now)
        for i in 0..<AmbientGate.maximumHeldWeather {
            #expect(!gate.admitWeather(.reading(.humidity, SensorReading(time: now.addingTimeInterval(Double(i)), value: 50))))
        }
        #expect(gate.admitWeather(.reading(.humidity, SensorReading(time: now.addingTimeInterval(2_000), value: 50))))
        await processor.shutdown()
    }
}
