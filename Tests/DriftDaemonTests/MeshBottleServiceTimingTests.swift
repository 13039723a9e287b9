import DriftCore
import DriftMesh
import DriftStore
import Foundation
import Logging
import Testing
import TestSupport

@testable import DriftDaemon

/// When ``MeshBottleService`` broadcasts the box's directory entry, on a manual clock: the
/// service runs, the test moves the clock and reads the node's outbox (the node never transmits).
@Suite("Mesh bottle service: directory entries on the clock")
struct MeshBottleServiceTimingTests {
    /// A running bottle service and its node, both on `clock`.
    struct Box {
        let harness: BottlesHarness
        let clock = ManualClock()
        /// The wall clock at the clock's zero (now: the mesh's expiry minutes start in 2025).
        let start = Date()
        let node: MeshNode
        let service: MeshBottleService
        let running: Task<Void, any Error>
        var wall: @Sendable () -> Date { clock.wallClock(startingAt: start) }

        init(settings: BottleSettings = BottlesFixtures.settings) async throws {
            harness = try await BottlesHarness(settings: settings)
            node = try MeshNodeTests.node(database: harness.database, clock: clock, start: start)
            var mesh = MeshBottleService.Settings(name: "Timing Box")
            mesh.boxInfoInterval = .seconds(900)
            service = MeshBottleService(node: node, ports: MeshPorts(), processor: harness.processor, events: harness.bus,
                                        settings: mesh, logger: Logger(label: "test"), clock: clock,
                                        now: clock.wallClock(startingAt: start))
            running = Task { [service] in try await service.run() }
            await clock.waitForSleepers(2)  // the announcements and the housekeeping
        }

        /// Moves the clock by `duration` and returns once both loops sleep again.
        func advance(by duration: Duration) async {
            clock.advance(by: duration)
            await clock.waitForSleepers(2)
        }

        /// The directory entries queued so far, oldest first.
        func announcements() throws -> [BottleMeshWire.BoxInfo] {
            let sealer = try MeshSealer(networkKey: MeshNodeTests.networkKey)
            return try node.store.due(now: wall().addingTimeInterval(1)).compactMap { entry in
                let message = try #require(MeshMessage(decoding: try sealer.open(entry.frames[0]).plaintext))
                return message.port == MeshMessage.Port.boxInfo.rawValue ? BottleMeshWire.BoxInfo(decoding: message.body) : nil
            }
        }

        func stop() async {
            running.cancel()
            _ = try? await running.value
            harness.remove()
        }
    }

    @Test("entries go out 2 s after the start, 15 s later, then once an interval (± 10 %), never before", .timeLimit(.minutes(1)))
    func schedule() async throws {
        let box = try await Box()
        #expect(try box.announcements().isEmpty)
        await box.advance(by: .seconds(2) - .nanoseconds(1))
        #expect(try box.announcements().isEmpty)
        await box.advance(by: .nanoseconds(1))
        #expect(try box.announcements().count == 1)
        await box.advance(by: .seconds(15) - .nanoseconds(1))
        #expect(try box.announcements().count == 1)
        await box.advance(by: .nanoseconds(1))
        #expect(try box.announcements().count == 2)
        await box.advance(by: .seconds(810) - .nanoseconds(1))  // the interval's shortest draw
        #expect(try box.announcements().count == 2)
        await box.advance(by: .seconds(180))  // past the longest
        #expect(try box.announcements().count == 3)
        #expect(try box.announcements().allSatisfy { $0.position == BottlesFixtures.berlin })
        await box.stop()
    }

    @Test("a position learnt after the first entries goes out at the next look, not at the next interval", .timeLimit(.minutes(1)))
    func positionLearnt() async throws {
        var settings = BottlesFixtures.settings
        settings.position = nil
        let box = try await Box(settings: settings)
        await box.advance(by: .seconds(2))
        await box.advance(by: .seconds(15))
        #expect(try box.announcements().map(\.position) == [nil, nil])
        // A fix arrives; the service looks for a position every positionCheckInterval (10 s).
        _ = await box.harness.processor.ingest(.gps(BottlesFixtures.goodFix(at: box.wall())), now: box.wall())
        await box.advance(by: .seconds(10))
        #expect(try box.announcements().map(\.position) == [nil, nil, BottlesFixtures.berlin])
        // Once the position went out, nothing more until the interval.
        await box.advance(by: .seconds(800))
        #expect(try box.announcements().count == 3)
        await box.stop()
    }
}
