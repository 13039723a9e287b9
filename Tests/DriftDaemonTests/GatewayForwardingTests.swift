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
/// every one (the run `driftd bench mqtt` measures). Then what a standby gateway and bad
/// payloads from the broker do to the same core.
@Suite("Gateway forwarding to a real broker", .serialized)
struct GatewayForwardingTests {
    @Test("2000 frames offered are all published, acknowledged, received once each and removed from the outbox; standby gateways publish none",
          .enabled(if: MosquittoBroker.available, "\(MosquittoBroker.skipReason)"), .timeLimit(.minutes(3)))
    func forwardsEverything() async throws {
        let broker = try await MosquittoBroker()
        let directory = try TemporaryDirectory(prefix: "gateway-forward")
        defer { directory.remove() }
        let run = try await GatewayBenchmark.run(host: "127.0.0.1", port: broker.port, count: 2_000, directory: directory.path)
        #expect(run.received == 2_000)
        #expect(run.acknowledged == 2_000)
        #expect(run.outboxLeft == 0)

        let database = try DriftDatabase.open(path: directory.appending("core.sqlite"))
        let node = try MeshNodeTests.node(database: database)
        let topics = GatewayTopics(prefix: "bench", network: "00000000")
        let client = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "gateway"))
        let core = GatewayCore(settings: GatewayCore.Settings(topics: topics), client: client, outbox: MQTTOutbox(database: database, limit: 100),
                               node: node, wake: {}, telemetry: .init(boxID: "box-test", name: "Test"), logger: Logger(label: "test"))
        let sealer = try MeshSealer(networkKey: MeshNodeTests.networkKey)
        let origin = BoxKeyPair()
        let frames = try (0..<2).map { index -> BridgeFrame in
            let header = MeshHeader(kind: .broadcast, origin: origin.nodeID, packetID: UInt32(index + 1), hopStart: 3,
                                    expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 3_600))
            let bytes = try sealer.seal(header: header, plaintext: Array(repeating: UInt8(index), count: 120))
            return BridgeFrame(bytes: bytes, header: header, firstTime: true, own: false, destinationIsLocal: false)
        }

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

        await client.stop()
        await broker.stop()
    }
}
