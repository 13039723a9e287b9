import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging
import Synchronization
import Testing
import TestSupport

@testable import DriftDaemon

/// The gateway's timing on a manual clock: the timer sleeps until the core's next deadline and
/// wakes early when a deadline moves earlier; the de-duplication window, the election and
/// telemetry intervals and the settle delay follow the injected clock, not the wall.
@Suite("Gateway timing on a manual clock")
struct GatewayTimingTests {
    /// A core on `clock`, its client (not started unless a test starts it) pointed at `port`.
    static func core(clock: ManualClock, port: Int = 1, directory: TemporaryDirectory, now: Date = Date(),
                     rearms: Rearms = Rearms()) throws -> (GatewayCore, MQTTClient, MeshNode, MQTTOutbox) {
        let database = try DriftDatabase.open(path: directory.appending("drift-\(UUID().uuidString.prefix(6)).sqlite"))
        let node = try MeshNodeTests.node(database: database)
        let client = try MQTTClient(configuration: .init(host: "127.0.0.1", port: port, clientID: "timing-\(UUID().uuidString.prefix(6))"))
        let outbox = MQTTOutbox(database: database, limit: 100)
        let core = GatewayCore(settings: GatewayCore.Settings(topics: GatewayTopics(prefix: "timing", network: "00000000")),
                               client: client, outbox: outbox, node: node, wake: {}, telemetry: .init(boxID: "box-timing", name: "Timing"),
                               logger: Logger(label: "test"), clock: clock, now: { now }, rearm: { rearms.count() })
        return (core, client, node, outbox)
    }

    final class Rearms: Sendable {
        private let calls = Mutex(0)
        func count() { calls.withLock { $0 += 1 } }
        var total: Int { calls.withLock { $0 } }
    }

    static func directed(_ packetID: UInt32, firstTime: Bool) throws -> BridgeFrame {
        let origin = BoxKeyPair()
        let header = MeshHeader(kind: .directed, origin: origin.nodeID, packetID: packetID, destination: NodeID(0x0bad_cafe), hopStart: 3,
                                expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 3_600))
        let bytes = try MeshSealer(networkKey: MeshNodeTests.networkKey).seal(header: header, plaintext: MeshMessage.text("to afar").encoded)
        return BridgeFrame(bytes: bytes, header: header, firstTime: firstTime, own: false, destinationIsLocal: false)
    }

    @Test("the timer sleeps until the deadline tick answers, on the injected clock, and a rearm cuts a sleep short")
    func timerSleepsUntilDeadline() async throws {
        let clock = ManualClock()
        let timer = GatewayTimer(clock: clock)
        let (ticks, tick) = AsyncStream.makeStream(of: Duration.self)
        let running = Task {
            await timer.run {
                tick.yield(clock.now.offset)
                return .seconds(5)
            }
        }
        var times = ticks.makeAsyncIterator()
        #expect(await times.next() == .zero)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(await times.next() == .seconds(5))
        await clock.waitForSleepers(1)
        // A deadline moved earlier (the core rearms): the sleep ends now, the core is asked again.
        timer.rearm()
        #expect(await times.next() == .seconds(5))
        await clock.waitForSleepers(1)
        running.cancel()
        await running.value
    }

    @Test("a rearm between two sleeps ends the next sleep at once")
    func rearmBeforeSleep() async throws {
        let clock = ManualClock()
        let timer = GatewayTimer(clock: clock)
        let (ticks, tick) = AsyncStream.makeStream(of: Int.self)
        let calls = Mutex(0)
        let running = Task {
            await timer.run {
                let call = calls.withLock { calls -> Int in
                    calls += 1
                    return calls
                }
                // During the first tick the core's deadlines move (a connect came in meanwhile).
                if call == 1 { timer.rearm() }
                tick.yield(call)
                return .seconds(60)
            }
        }
        var seen = ticks.makeAsyncIterator()
        #expect(await seen.next() == 1)
        #expect(await seen.next() == 2)
        await clock.waitForSleepers(1)
        #expect(clock.now.offset == .zero)
        running.cancel()
        await running.value
    }

    @Test("a directed frame heard again is published again only once the retry spacing has passed on the clock")
    func deduplicationWindow() async throws {
        let directory = try TemporaryDirectory(prefix: "gateway-dedup")
        defer { directory.remove() }
        let clock = ManualClock()
        let (core, _, _, _) = try Self.core(clock: clock, directory: directory)
        let first = try Self.directed(7, firstTime: true)
        var again = first
        again.firstTime = false
        await core.offer([first], overflow: 0)
        #expect(await core.counters.queued == 1)
        clock.advance(by: .seconds(19))
        await core.offer([again], overflow: 0)
        var counters = await core.counters
        #expect(counters.queued == 1 && counters.repeats == 1)
        clock.advance(by: .seconds(1))
        await core.offer([again], overflow: 0)
        counters = await core.counters
        #expect(counters.queued == 2 && counters.repeats == 1)
        // The window starts again from the second publish.
        clock.advance(by: .seconds(10))
        await core.offer([again], overflow: 0)
        #expect(await core.counters.repeats == 2)
    }

    @Test("the election reads the node's neighbours every 5 s on the clock; tick answers the time to the next deadline")
    func electionInterval() async throws {
        let directory = try TemporaryDirectory(prefix: "gateway-election")
        defer { directory.remove() }
        let clock = ManualClock()
        let (core, _, node, _) = try Self.core(clock: clock, directory: directory)
        // Another gateway of a lower id is online and hears X; this one hears nobody yet.
        let topics = GatewayTopics(prefix: "timing", network: "00000000")
        let lower = NodeID(1)
        await core.handle(.message(MQTTMessage(topic: topics.state(of: lower), payload: Array("online".utf8))))
        let x = BoxKeyPair()
        await core.handle(.message(MQTTMessage(topic: topics.mesh(of: lower), payload: GatewayElection.encodeNeighbours([x.nodeID]))))
        #expect(await core.tick() == .seconds(5))
        #expect(await core.status().forwarder)
        // This box hears X's hello: the same mesh as the lower gateway, which forwards — but
        // this gateway learns it only at the next election.
        let hello = try MeshSealer(networkKey: MeshNodeTests.networkKey).seal(
            header: MeshHeader(kind: .hello, origin: x.nodeID, packetID: 1, hopStart: 0,
                               expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 600)),
            plaintext: HelloPayload(publicKey: x.publicKeyBytes, neighbours: []).encoded())
        await node.receive(MeshNodeTests.reception(hello))
        #expect(await node.neighbourIDs() == [x.nodeID])
        clock.advance(by: .seconds(4))
        #expect(await core.tick() == .seconds(1))
        #expect(await core.status().forwarder)
        clock.advance(by: .seconds(1))
        #expect(await core.tick() == .seconds(5))
        #expect(await !core.status().forwarder)
    }

    @Test("telemetry goes out 5 s after start and then every interval on the clock, stamped with the injected wall time; queued frames wait for the settle delay",
          .enabled(if: MosquittoBroker.available, "\(MosquittoBroker.skipReason)"), .timeLimit(.minutes(1)))
    func telemetryAndSettle() async throws {
        let broker = try await MosquittoBroker()
        let directory = try TemporaryDirectory(prefix: "gateway-telemetry")
        defer { directory.remove() }
        let clock = ManualClock()
        let wall = Date(timeIntervalSince1970: 1_800_000_000)
        let rearms = Rearms()
        let (core, client, node, outbox) = try Self.core(clock: clock, port: broker.port, directory: directory, now: wall, rearms: rearms)
        let topics = GatewayTopics(prefix: "timing", network: "00000000")
        let listener = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "telemetry-listener",
                                                           subscriptions: [topics.telemetry(of: node.me), topics.frames(from: node.me)]))
        let heard = MQTTEventLog(listener.events)
        try listener.start()
        #expect(await heard.event(within: .seconds(20)) { $0 == .connected } != nil)
        let (events, relay) = AsyncStream.makeStream(of: MQTTEvent.self)
        let handled = MQTTEventLog(events)
        let pump = Task {
            for await event in client.events {
                await core.handle(event)
                relay.yield(event)
            }
            relay.finish()
        }
        #expect(await core.tick() == .seconds(5))
        try client.start()
        #expect(await handled.event(within: .seconds(20)) { $0 == .connected } != nil)
        // The connect moved a deadline earlier (the neighbours go out now, the outbox after 2 s).
        #expect(rearms.total >= 1)
        #expect(await core.tick() == .seconds(2))

        await core.offer([try Self.directed(9, firstTime: true)], overflow: 0)
        #expect(await core.status().inflight == 0)
        #expect(try outbox.count() == 1)
        clock.advance(by: .seconds(2))
        #expect(await core.tick() == .seconds(3))
        // Its PUBACK (the neighbours' retained message was acknowledged too, but is not counted).
        while await core.counters.published < 1,
              await handled.event(within: .seconds(20), { if case .published = $0 { true } else { false } }) != nil {}
        #expect(await core.counters.published == 1)
        #expect(await heard.event(within: .seconds(20)) { if case .message(let m) = $0 { m.topic == topics.frames(from: node.me) } else { false } } != nil)
        // The acknowledgement leaves the outbox with its batch, 250 ms later.
        #expect(try outbox.count() == 1)
        #expect(await core.tick() == .milliseconds(250))
        clock.advance(by: .milliseconds(250))
        await core.tick()
        #expect(try outbox.count() == 0)

        clock.advance(by: .milliseconds(2_750))
        await core.tick()
        #expect(await core.counters.telemetry == 1)
        let first = await heard.event(within: .seconds(20)) { if case .message(let m) = $0 { m.topic == topics.telemetry(of: node.me) } else { false } }
        guard case .message(let message) = first else {
            Issue.record("no telemetry arrived")
            return
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let telemetry = try decoder.decode(GatewayTelemetry.self, from: Data(message.payload))
        #expect(telemetry.at == wall && telemetry.box == "box-timing")
        clock.advance(by: .seconds(59))
        await core.tick()
        #expect(await core.counters.telemetry == 1)
        clock.advance(by: .seconds(1))
        await core.tick()
        #expect(await core.counters.telemetry == 2)

        await client.stop()
        await listener.stop()
        await pump.value
        await broker.stop()
    }
}
