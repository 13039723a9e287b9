import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging
import Testing
import TestSupport

@testable import DriftDaemon

/// One gateway's mesh → broker path on a real Mosquitto: frames handed over by the node go
/// through the SQLite outbox, out QoS 1, and leave the outbox on PUBACK; a subscriber receives
/// every one. Prints the rate (frames per second) — the figure quoted in the README.
@Suite("Gateway forwarding to a real broker", .serialized)
struct GatewayForwardingTests {
    @Test("2000 frames offered are all published, acknowledged, received once each and removed from the outbox; standby gateways publish none",
          .enabled(if: MosquittoBroker.available, "\(MosquittoBroker.skipReason)"), .timeLimit(.minutes(3)))
    func forwardsEverything() async throws {
        let broker = try await MosquittoBroker()
        let directory = try TemporaryDirectory(prefix: "gateway-forward")
        defer { directory.remove() }
        let database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        let node = try MeshNodeTests.node(database: database)
        let outbox = MQTTOutbox(database: database, limit: 100_000)
        let topics = GatewayTopics(prefix: "bench", network: "00000000")
        let client = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "gateway", maxInflight: 200))
        var settings = GatewayCore.Settings(topics: topics)
        settings.settle = .zero
        let core = GatewayCore(settings: settings, client: client, outbox: outbox, node: node, wake: {},
                               telemetry: .init(boxID: "box-test", name: "Test"), logger: Logger(label: "test"))
        let listener = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "listener",
                                                           subscriptions: ["bench/00000000/frames/+"], maxInflight: 200))
        var heard = listener.events.makeAsyncIterator()
        try listener.start()
        #expect(await MQTTClientTestsShim.next(&heard) { $0 == .connected } != nil)
        let pump = Task { for await event in client.events { await core.handle(event) } }
        try client.start()
        // Wait for the connection.
        let connectDeadline = ContinuousClock.now + .seconds(20)
        while await !core.status().connected, ContinuousClock.now < connectDeadline { try await Task.sleep(for: .milliseconds(50)) }

        let count = 2_000
        let sealer = try MeshSealer(networkKey: MeshNodeTests.networkKey)
        let origin = BoxKeyPair()
        let frames = try (0..<count).map { index -> BridgeFrame in
            let header = MeshHeader(kind: .broadcast, origin: origin.nodeID, packetID: UInt32(index + 1), hopStart: 3,
                                    expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 3_600))
            let bytes = try sealer.seal(header: header, plaintext: Array(repeating: UInt8(index & 0xFF), count: 120))
            return BridgeFrame(bytes: bytes, header: header, firstTime: true, own: false, destinationIsLocal: false)
        }
        let started = ContinuousClock.now
        for batch in stride(from: 0, to: count, by: 50) {
            await core.offer(Array(frames[batch..<min(count, batch + 50)]), overflow: 0)
        }
        var received = Set<[UInt8]>()
        let deadline = ContinuousClock.now + .seconds(120)
        while received.count < count, ContinuousClock.now < deadline {
            guard let event = await heard.next() else { break }
            if case .message(let message) = event, let frame = try? GatewayFramePayload.decode(message.payload) { received.insert(frame) }
        }
        let elapsed = ContinuousClock.now - started
        var acknowledged = await core.counters.published
        while acknowledged < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            acknowledged = await core.counters.published
        }
        await core.tick()
        #expect(received.count == count)
        #expect(acknowledged == count)
        #expect(try outbox.count() == 0)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("gateway forwarding: \(count) frames of \(frames[0].bytes.count) bytes in \(String(format: "%.2f", seconds)) s = \(Int(Double(count) / seconds)) frames/s (SQLite outbox, QoS 1, loopback Mosquitto)")

        // A standby gateway (a lower id of the same mesh is online) publishes nothing of others'.
        await core.handle(.message(MQTTMessage(topic: topics.state(of: NodeID(1)), payload: Array("online".utf8))))
        await core.handle(.message(MQTTMessage(topic: topics.mesh(of: NodeID(1)), payload: GatewayElection.encodeNeighbours([node.me]))))
        let before = await core.counters.queued
        await core.offer([frames[0]], overflow: 0)
        let after = await core.counters
        #expect(after.queued == before && after.standby == 1)
        // Malformed and oversize payloads from the broker are counted, never injected.
        await core.handle(.message(MQTTMessage(topic: topics.frames(from: NodeID(9)), payload: [])))
        await core.handle(.message(MQTTMessage(topic: topics.frames(from: NodeID(9)), payload: [1] + Array(repeating: 0, count: 400))))
        await core.handle(.message(MQTTMessage(topic: topics.frames(from: node.me), payload: [1] + frames[1].bytes)))
        let dropped = await core.counters.dropped
        #expect(dropped["empty"] == 1 && dropped["oversize"] == 1, "\(dropped)")
        #expect(await core.counters.echoes == 1)
        // A standby gateway leaves frames from the broker to the forwarder (no second relay on air).
        let injectedBefore = await core.counters.injected
        await core.handle(.message(MQTTMessage(topic: topics.frames(from: NodeID(9)), payload: [1] + frames[1].bytes)))
        let standing = await core.counters
        #expect(standing.standbyIn == 1 && standing.injected == injectedBefore, "\(standing)")

        client.stop()
        listener.stop()
        pump.cancel()
        await broker.stop()
    }
}

/// The event-matching helper (HardwareTests has its own copy; test targets do not share code).
enum MQTTClientTestsShim {
    static func next(_ iterator: inout AsyncStream<MQTTEvent>.Iterator, timeout: Duration = .seconds(20),
                     _ match: (MQTTEvent) -> Bool) async -> MQTTEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let event = await iterator.next() else { return nil }
            if match(event) { return event }
        }
        return nil
    }
}
