import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging
import Synchronization

/// `driftd bench mqtt`: one gateway's mesh → broker path on a real broker, as the daemon runs
/// it — frames handed over by the node go through the SQLite outbox, out with QoS 1, leave the
/// outbox on their PUBACK — and a subscriber on the frames topic that must receive each once.
///
/// Measures frames per second (offered until the subscriber has them all, and until every
/// PUBACK is in) and each frame's delay from offer to receipt. The same run is what
/// `GatewayForwardingTests` checks for completeness.
public enum GatewayBenchmark {
    public struct Result: Codable, Sendable {
        public var frames: Int
        public var frameBytes: Int
        /// Distinct frames the subscriber received (must equal `frames`).
        public var received: Int
        /// PUBACKs the gateway counted (must equal `frames`).
        public var acknowledged: Int
        /// Rows left in the outbox afterwards (must be 0).
        public var outboxLeft: Int
        /// First offer → the subscriber has every frame.
        public var receivedPerSecond: Double
        /// First offer → every PUBACK is in.
        public var acknowledgedPerSecond: Double
        /// Offer → receipt at the subscriber, per frame.
        public var delayP50Milliseconds: Double
        public var delayP99Milliseconds: Double
        public var delayMaxMilliseconds: Double
    }

    public struct BenchmarkError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `count` frames of about 150 bytes through a gateway connected to `host:port`, with
    /// its database in `directory`. Gives up waiting after `limit`.
    public static func run(host: String, port: Int, count: Int, directory: String,
                           limit: Duration = .seconds(120)) async throws -> Result {
        let networkKey = Array("drift-box-gateway-bench-key-32by".utf8)
        let database = try DriftDatabase.open(path: directory + "/drift.sqlite")
        let settings = MeshNode.Settings(hopLimit: 3, messageLifetime: 3_600, modulation: .longFast, router: .standard)
        let node = try MeshNode(keyPair: BoxKeyPair(), networkKey: networkKey, store: MeshStore(database: database),
                                budget: AirtimeBudget(window: .seconds(3_600), limit: .seconds(360)), settings: settings,
                                logger: Logger(label: "bench"))
        let outbox = MQTTOutbox(database: database, limit: count * 2)
        let topics = GatewayTopics(prefix: "bench-\(UUID().uuidString.prefix(6).lowercased())", network: "00000000")
        let client = try MQTTClient(configuration: .init(host: host, port: port, clientID: "\(topics.prefix)-gateway", maxInflight: 200))
        var coreSettings = GatewayCore.Settings(topics: topics)
        coreSettings.settle = .zero
        let core = GatewayCore(settings: coreSettings, client: client, outbox: outbox, node: node, wake: {},
                               telemetry: .init(boxID: "box-bench", name: "Bench"), logger: Logger(label: "bench"))
        let listener = try MQTTClient(configuration: .init(host: host, port: port, clientID: "\(topics.prefix)-listener",
                                                           subscriptions: ["\(topics.prefix)/00000000/frames/+"], maxInflight: 200))
        let heard = MQTTEventLog(listener.events)
        // The core handles the gateway's events; `handled` repeats each one once it has.
        let (handled, relay) = AsyncStream.makeStream(of: MQTTEvent.self)
        let pump = Task {
            for await event in client.events {
                await core.handle(event)
                relay.yield(event)
            }
            relay.finish()
        }
        let gateway = MQTTEventLog(handled)
        do {
            var run = try await measure(count: count, core: core, gateway: gateway, listener: listener, heard: heard, client: client,
                                        networkKey: networkKey, limit: limit, broker: "\(host):\(port)")
            run.outboxLeft = (try? outbox.count()) ?? -1
            await stop(client, listener, pump)
            return run
        } catch {
            await stop(client, listener, pump)
            throw error
        }
    }

    private static func stop(_ client: MQTTClient, _ listener: MQTTClient, _ pump: Task<Void, Never>) async {
        await client.stop()
        await listener.stop()
        await pump.value
    }

    /// Connects both clients, offers the frames, and measures until the listener has them all
    /// and every PUBACK is in (the caller counts what is left in the outbox).
    private static func measure(count: Int, core: GatewayCore, gateway: MQTTEventLog, listener: MQTTClient, heard: MQTTEventLog,
                                client: MQTTClient, networkKey: [UInt8], limit: Duration, broker: String) async throws -> Result {
        try listener.start()
        guard await heard.event(within: .seconds(20), { $0 == .connected }) != nil else {
            throw BenchmarkError(description: "no MQTT broker answers at \(broker)")
        }
        try client.start()
        guard await gateway.event(within: .seconds(20), { $0 == .connected }) != nil else {
            throw BenchmarkError(description: "the gateway did not connect to \(broker)")
        }

        let sealer = try MeshSealer(networkKey: networkKey)
        let origin = BoxKeyPair()
        let frames = try (0..<count).map { index -> BridgeFrame in
            let header = MeshHeader(kind: .broadcast, origin: origin.nodeID, packetID: UInt32(index + 1), hopStart: 3,
                                    expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 3_600))
            let bytes = try sealer.seal(header: header, plaintext: Array(repeating: UInt8(index & 0xFF), count: 120))
            return BridgeFrame(bytes: bytes, header: header, firstTime: true, own: false, destinationIsLocal: false)
        }
        let clock = ContinuousClock()
        var offeredAt = [ContinuousClock.Instant](repeating: clock.now, count: count)
        let started = clock.now
        for batch in stride(from: 0, to: count, by: 50) {
            let range = batch..<min(count, batch + 50)
            let now = clock.now
            for index in range { offeredAt[index] = now }
            await core.offer(Array(frames[range]), overflow: 0)
        }
        var delays: [Duration] = []
        var seen = Set<UInt32>()
        let deadline = clock.now + limit
        while seen.count < count, clock.now < deadline {
            guard let (event, at) = await heard.next(within: deadline - clock.now, { if case .message = $0 { true } else { false } }) else { break }
            guard case .message(let message) = event,
                  let frame = try? GatewayFramePayload.decode(message.payload),
                  let header = try? MeshFrameCodec.parse(frame).header
            else { continue }
            let index = Int(header.packetID) - 1
            guard frames.indices.contains(index), seen.insert(header.packetID).inserted else { continue }
            delays.append(at - offeredAt[index])
        }
        let allReceived = clock.now - started
        // Each PUBACK the core has handled; the acknowledged rows leave the outbox on the next tick.
        while await core.counters.published < count, clock.now < deadline {
            guard await gateway.event(within: deadline - clock.now, { if case .published = $0 { true } else { false } }) != nil else { break }
        }
        let allAcknowledged = clock.now - started
        await core.tick()
        await core.finish()

        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        let sorted = delays.map { seconds($0) * 1_000 }.sorted()
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        return Result(frames: count, frameBytes: frames.first?.bytes.count ?? 0, received: seen.count,
                      acknowledged: await core.counters.published, outboxLeft: 0,
                      receivedPerSecond: Double(count) / seconds(allReceived),
                      acknowledgedPerSecond: Double(count) / seconds(allAcknowledged),
                      delayP50Milliseconds: percentile(0.5), delayP99Milliseconds: percentile(0.99),
                      delayMaxMilliseconds: sorted.last ?? 0)
    }
}
