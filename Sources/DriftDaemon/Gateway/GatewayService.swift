import DriftConfig
import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging
import ServiceLifecycle
import Synchronization

/// A gateway box (`[mqtt] enabled = true`): bridges its radio mesh to other meshes over an
/// MQTT broker and publishes telemetry and camp beacons (`docs/mqtt.md`).
///
/// Frames the node hears (and its own) that may leave the mesh go to a bounded SQLite outbox
/// and are published QoS 1 on `frames/{node}`, removed on PUBACK; frames from other gateways
/// enter the node like receptions (open, expiry, seen-set, route, relay with their remaining
/// hops). Only the elected gateway of a radio mesh publishes (``GatewayElection``); all inject.
public final class GatewayService: Service, Sendable {
    public static let component = "mqtt"

    public let topics: GatewayTopics
    let core: GatewayCore
    private let client: MQTTClient
    private let intake = FrameIntake()
    private let timer: GatewayTimer
    /// The disconnect under way, started once (on graceful shutdown or when the loops end)
    /// and awaited before ``run()`` returns.
    private let stopping = Mutex<Task<Void, Never>?>(nil)
    private let mesh: MeshService
    private let camps: AsyncStream<MeshDelivery>?
    private let logger: Logger

    /// Builds the client and the gateway; nothing connects until ``run()``.
    /// - Parameters:
    ///   - clock: the gateway's timers (telemetry, election, settle delay); a manual clock in tests.
    ///   - now: the wall clock for telemetry and outbox rows.
    public init(config: DriftConfiguration.MQTT, networkKey: [UInt8], boxID: String, mesh: MeshService, outbox: MQTTOutbox,
                telemetry: GatewayTelemetry.Sources, camps: AsyncStream<MeshDelivery>?, password: String?,
                health: HealthRegistry? = nil, logger: Logger, settle: Duration = .seconds(2),
                clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }) throws(MQTTError) {
        let me = mesh.node.me
        let topics = GatewayTopics(prefix: config.topicPrefix, network: MeshSealer.networkTag(networkKey: networkKey))
        self.topics = topics
        let client = try MQTTClient(configuration: Self.clientConfiguration(config, boxID: boxID, password: password, topics: topics, me: me))
        self.client = client
        self.mesh = mesh
        self.camps = camps
        self.logger = logger
        var settings = GatewayCore.Settings(topics: topics)
        settings.telemetryInterval = .seconds(config.telemetryIntervalSeconds)
        settings.settle = settle
        let timer = GatewayTimer(clock: clock)
        self.timer = timer
        core = GatewayCore(settings: settings, client: client, outbox: outbox, node: mesh.node, wake: { [mesh] in mesh.wake() },
                           telemetry: telemetry, reportFault: { [health] in health?.setFault(Self.component, $0) }, logger: logger,
                           clock: clock, now: now, rearm: { timer.rearm() })
    }

    /// The client's settings from `[mqtt]`: TLS files only with `tls`, credentials only with a
    /// username, the retained `online`/`offline` state of this gateway as birth and last will.
    static func clientConfiguration(_ config: DriftConfiguration.MQTT, boxID: String, password: String?, topics: GatewayTopics,
                                    me: NodeID) -> MQTTClientConfiguration {
        MQTTClientConfiguration(
            host: config.host, port: config.port, clientID: config.clientID.isEmpty ? boxID : config.clientID,
            keepalive: config.keepaliveSeconds,
            caFile: config.tls ? config.caFile : nil,
            certFile: config.tls && !config.certFile.isEmpty ? config.certFile : nil,
            keyFile: config.tls && !config.keyFile.isEmpty ? config.keyFile : nil,
            username: config.username.isEmpty ? nil : config.username,
            password: config.username.isEmpty ? nil : password,
            will: MQTTMessage(topic: topics.state(of: me), payload: Array("offline".utf8), qos: 1, retain: true),
            birth: MQTTMessage(topic: topics.state(of: me), payload: Array("online".utf8), qos: 1, retain: true),
            subscriptions: topics.subscriptions, reconnectDelay: 1, reconnectDelayMax: 10)
    }

    /// The password from `password` or the first line of `password_file` (`nil`: none).
    public static func password(_ config: DriftConfiguration.MQTT) throws -> String? {
        if !config.passwordFile.isEmpty {
            let text = try String(contentsOfFile: config.passwordFile, encoding: .utf8)
            return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        }
        return config.password.isEmpty ? nil : config.password
    }

    public func status() async -> GatewayStatus {
        await core.status()
    }

    public func run() async throws {
        let intake = self.intake
        await mesh.node.attachBridge { intake.push($0) }
        do {
            try client.start()
        } catch {
            // Returning would stop the whole daemon: the box runs on without its uplink.
            logger.error("mqtt cannot start", metadata: ["error": "\(error)"])
            try? await gracefulShutdown()
            return
        }
        logger.info("mqtt gateway up", metadata: ["broker": "\(client.configuration.host):\(client.configuration.port)",
                                                   "topics": "\(topics.prefix)/\(topics.network)"])
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in self.client.events { await self.core.handle(event) }
                }
                group.addTask { await self.intakeLoop() }
                group.addTask { await self.timerLoop() }
                if let camps = self.camps {
                    group.addTask { await self.campLoop(camps) }
                }
                await group.next()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            _ = self.stopClient()
        }
        await stopClient().value
        await core.finish()
        await core.shutdown()
    }

    /// Disconnects with `offline` retained, once. The returned task (awaited by ``run()``
    /// before it returns) ends when the client's network thread has finished and is joined;
    /// it waits for that without holding a cooperative-pool thread.
    private func stopClient() -> Task<Void, Never> {
        stopping.withLock { stopping in
            if let stopping { return stopping }
            let client = self.client
            let offline = MQTTMessage(topic: topics.state(of: mesh.node.me), payload: Array("offline".utf8), qos: 1, retain: true)
            let task = Task { await client.stop(lastWords: offline) }
            stopping = task
            return task
        }
    }

    private func intakeLoop() async {
        while !Task.isCancelled {
            await intake.doorbell.wait(timeout: .seconds(1))
            let (frames, overflow) = intake.take()
            if !frames.isEmpty || overflow > 0 { await core.offer(frames, overflow: overflow) }
        }
    }

    private func timerLoop() async {
        let core = self.core
        await timer.run { await core.tick() }
    }

    /// Camp beacons heard (or sent) here, as JSON on `camps`.
    private func campLoop(_ deliveries: AsyncStream<MeshDelivery>) async {
        for await delivery in deliveries {
            guard let message = try? CampMessage(decoding: delivery.message.body) else { continue }
            let object: [String: Any] = [
                "origin": GatewayTopics.nodeLevel(delivery.origin), "packetID": delivery.key.packetID, "hops": delivery.hops,
                "receivedAt": ISO8601DateFormatter().string(from: delivery.receivedAt), "kind": "\(message.kind)",
                "message": "\(message)", "via": GatewayTopics.nodeLevel(mesh.node.me),
            ]
            guard let json = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { continue }
            await core.enqueue(topic: topics.camps, json: Array(json))
        }
    }
}
