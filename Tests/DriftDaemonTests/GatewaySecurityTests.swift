import DriftConfig
import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging
import Synchronization
import Testing
import TestSupport

@testable import DriftDaemon

/// `[mqtt]` TLS, client certificates and passwords against a real Mosquitto with a throwaway
/// CA: the gateway connects with what the config names, and when the broker turns it away the
/// reason is in the gateway's status and in the box's faults (what an installer reads in
/// `driftd status`), once, until a connect works.
@Suite("Gateway: TLS and passwords on a real broker", .serialized)
struct GatewaySecurityTests {
    static let enabled = MosquittoBroker.available && TestCertificates.available
    static let skipReason = "\(MosquittoBroker.skipReason), and /usr/bin/openssl for the test CA"

    /// The box's `[mqtt]` section as an installer writes it, against `broker`.
    static func config(_ broker: MosquittoBroker, _ edit: (inout DriftConfiguration.MQTT) -> Void) throws -> DriftConfiguration.MQTT {
        var mqtt = try ConfigLoader(systemBoardDirectories: []).load(
            text: DriftConfiguration.embeddedDefaultText, fileName: "test.toml", baseDirectory: nil).configuration.mqtt
        mqtt.enabled = true
        mqtt.host = "127.0.0.1"
        mqtt.port = broker.port
        edit(&mqtt)
        return mqtt
    }

    /// A gateway core fed by a client built from `mqtt` exactly as the daemon builds it; what it
    /// reports as a fault is recorded.
    final class Gateway: Sendable {
        let core: GatewayCore
        let client: MQTTClient
        /// The client's events, each once the core has handled it.
        private let handled: MQTTEventLog
        /// Every fault the core reported (`nil`: cleared), in order.
        final class Faults: Sendable {
            let list = Mutex<[String?]>([])
        }
        private let reported = Faults()
        var faults: [String?] { reported.list.withLock { $0 } }
        private let pump: Task<Void, Never>

        init(_ mqtt: DriftConfiguration.MQTT, directory: TemporaryDirectory) throws {
            let database = try DriftDatabase.open(path: directory.appending("drift-\(UUID().uuidString.prefix(6)).sqlite"))
            let node = try MeshNodeTests.node(database: database)
            let topics = GatewayTopics(prefix: mqtt.topicPrefix, network: "00000000")
            client = try MQTTClient(configuration: GatewayService.clientConfiguration(
                mqtt, boxID: "box-secure", password: try GatewayService.password(mqtt), topics: topics, me: node.me))
            let reported = self.reported
            core = GatewayCore(settings: GatewayCore.Settings(topics: topics), client: client, outbox: MQTTOutbox(database: database, limit: 1_000),
                               node: node, wake: {}, telemetry: .init(boxID: "box-secure", name: "Secure"),
                               reportFault: { fault in reported.list.withLock { $0.append(fault) } }, logger: Logger(label: "test"))
            let (core, client) = (core, client)
            let (events, relay) = AsyncStream.makeStream(of: MQTTEvent.self)
            handled = MQTTEventLog(events)
            pump = Task {
                for await event in client.events {
                    await core.handle(event)
                    relay.yield(event)
                }
                relay.finish()
            }
            try client.start()
        }

        /// The status once `done` holds (looked at after each event the core handled), or the
        /// last one when no event came for `timeout`.
        func status(within timeout: Duration = .seconds(20), until done: (GatewayStatus) -> Bool) async -> GatewayStatus {
            let deadline = ContinuousClock.now + timeout
            var status = await core.status()
            while !done(status), await handled.event(within: deadline - .now, { _ in true }) != nil {
                status = await core.status()
            }
            return status
        }

        /// The next event the core has handled that matches, waiting up to `timeout`.
        func handledEvent(within timeout: Duration = .seconds(20), _ match: @escaping @Sendable (MQTTEvent) -> Bool) async -> MQTTEvent? {
            await handled.event(within: timeout, match)
        }

        func stop() async {
            await client.stop()
            await pump.value
        }
    }

    @Test("TLS with the fleet's CA and a password file: the gateway connects, no fault",
          .enabled(if: enabled, "\(skipReason)"), .timeLimit(.minutes(1)))
    func tlsAndPassword() async throws {
        let directory = try TemporaryDirectory(prefix: "gateway-tls")
        defer { directory.remove() }
        let certificates = try await runBlocking { try TestCertificates(in: directory) }
        let broker = try await MosquittoBroker(security: .init(certificates: certificates, users: ["box-secure": "s3cret pass"]))
        let passwordFile = directory.appending("mqtt.pw")
        try "s3cret pass\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let gateway = try Gateway(try Self.config(broker) {
            $0.tls = true
            $0.caFile = certificates.caFile
            $0.username = "box-secure"
            $0.passwordFile = passwordFile
        }, directory: directory)
        let status = await gateway.status { $0.connected }
        #expect(status.connected, "not connected over TLS; problem: \(status.problem ?? "none"); broker: \(broker.log)")
        #expect(status.problem == nil)
        #expect(gateway.faults.compactMap { $0 }.isEmpty)
        await gateway.stop()
    }

    @Test("a wrong password: refused, the broker's reason in the status and the faults, once; never connected",
          .enabled(if: enabled, "\(skipReason)"), .timeLimit(.minutes(1)))
    func wrongPassword() async throws {
        let directory = try TemporaryDirectory(prefix: "gateway-password")
        defer { directory.remove() }
        let broker = try await MosquittoBroker(security: .init(users: ["box-secure": "right"]))
        let gateway = try Gateway(try Self.config(broker) {
            $0.username = "box-secure"
            $0.password = "wrong"
        }, directory: directory)
        // libmosquitto retries every second or two: wait for a few refusals.
        let status = await gateway.status { $0.counters.refusals >= 3 }
        #expect(!status.connected)
        #expect(status.counters.refusals >= 3)
        let problem = try #require(status.problem, "no problem reported")
        #expect(problem.hasPrefix("the broker refused the connection: Connection Refused"), "\(problem)")
        // The same refusal again and again is one fault, not one per retry.
        #expect(gateway.faults == [problem])
        await gateway.stop()
    }

    @Test("a CA file that did not sign the broker's certificate: a TLS problem is reported; never connected",
          .enabled(if: enabled, "\(skipReason)"), .timeLimit(.minutes(1)))
    func wrongCA() async throws {
        let directory = try TemporaryDirectory(prefix: "gateway-ca")
        defer { directory.remove() }
        let certificates = try await runBlocking { try TestCertificates(in: directory) }
        let broker = try await MosquittoBroker(security: .init(certificates: certificates))
        let gateway = try Gateway(try Self.config(broker) {
            $0.tls = true
            $0.caFile = certificates.otherCAFile
        }, directory: directory)
        let status = await gateway.status { $0.problem != nil }
        #expect(!status.connected)
        let problem = try #require(status.problem, "no TLS problem reported")
        #expect(problem.localizedCaseInsensitiveContains("certificate"), "\(problem)")
        #expect(gateway.faults.last == problem)
        await gateway.stop()
    }

    @Test("a broker that requires client certificates admits the box with its certificate and key and turns away one without",
          .enabled(if: enabled, "\(skipReason)"), .timeLimit(.minutes(1)))
    func clientCertificate() async throws {
        let directory = try TemporaryDirectory(prefix: "gateway-cert")
        defer { directory.remove() }
        let certificates = try await runBlocking { try TestCertificates(in: directory) }
        let broker = try await MosquittoBroker(security: .init(certificates: certificates, requireCertificate: true))
        let with = try Gateway(try Self.config(broker) {
            $0.tls = true
            $0.caFile = certificates.caFile
            $0.certFile = certificates.clientCertFile
            $0.keyFile = certificates.clientKeyFile
        }, directory: directory)
        let admitted = await with.status { $0.connected }
        #expect(admitted.connected, "not admitted with a client certificate; problem: \(admitted.problem ?? "none"); broker: \(broker.log)")

        let without = try Gateway(try Self.config(broker) {
            $0.tls = true
            $0.caFile = certificates.caFile
        }, directory: directory)
        // The first outcome of its attempt: the broker's alert (a problem) or the connection it
        // closed — whichever libmosquitto sees first — never a connect.
        let outcome = await without.handledEvent {
            switch $0 {
            case .connected, .disconnected, .problem, .refused: true
            default: false
            }
        }
        #expect(outcome != nil && outcome != .connected, "admitted without a client certificate: \(outcome.map { "\($0)" } ?? "nothing happened")")
        #expect(await !without.core.status().connected)
        await with.stop()
        await without.stop()
    }
}
