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
        _ = try store.create(BottleDraft(content: BottleContent(text: "here"),
                                         conditions: [BottleCondition(.boxPosition(BoxPositionCondition(center: BottlesFixtures.berlin, radiusMeters: 50)))]),
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
}
