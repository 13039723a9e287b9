import DriftSystem
import Foundation
import Hardware
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The libmosquitto client against a real Mosquitto on loopback. Waits are for the client's
/// events, each with a generous deadline.
@Suite("MQTT client on a real broker", .serialized)
struct MQTTClientTests {
    @Test("publish QoS 1 is acknowledged and delivered; the birth is retained; the last will says offline when a client dies; reconnect after a broker restart",
          .enabled(if: MosquittoBroker.available, "\(MosquittoBroker.skipReason)"), .timeLimit(.minutes(2)))
    func roundTrip() async throws {
        let broker = try await MosquittoBroker()
        let listener = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "listener",
                                                           subscriptions: ["t/#"]))
        let speaker = try MQTTClient(configuration: .init(
            host: "127.0.0.1", port: broker.port, clientID: "speaker", keepalive: 5,
            will: MQTTMessage(topic: "t/state", payload: Array("offline".utf8), retain: true),
            birth: MQTTMessage(topic: "t/state", payload: Array("online".utf8), retain: true)))
        let heard = MQTTEventLog(listener.events)
        let told = MQTTEventLog(speaker.events)
        try listener.start()
        #expect(await heard.event(within: .seconds(20)) { $0 == .connected } != nil)
        try speaker.start()
        #expect(await told.event(within: .seconds(20)) { $0 == .connected } != nil)
        // The listener hears the birth live, or as the retained state when its subscription
        // reached the broker after the birth did.
        let online = await heard.event(within: .seconds(20)) { if case .message(let m) = $0 { m.topic == "t/state" } else { false } }
        guard case .message(let birth) = online else {
            Issue.record("no birth heard")
            return
        }
        #expect(birth.payload == Array("online".utf8) && birth.qos == 1)
        // A subscriber that comes after it gets the birth as the retained state.
        let late = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "late", subscriptions: ["t/state"]))
        let lateHeard = MQTTEventLog(late.events)
        try late.start()
        let retained = await lateHeard.event(within: .seconds(20)) { if case .message(let m) = $0 { m.topic == "t/state" } else { false } }
        #expect(retained == .message(MQTTMessage(topic: "t/state", payload: Array("online".utf8), qos: 1, retain: true)))
        await late.stop()

        let mid = try speaker.publish(MQTTMessage(topic: "t/frame", payload: [1, 2, 3]))
        #expect(await told.event(within: .seconds(20)) { $0 == .published(mid: mid) } != nil)
        #expect(await heard.event(within: .seconds(20)) { if case .message(let m) = $0 { m.topic == "t/frame" && m.payload == [1, 2, 3] } else { false } } != nil)

        // The broker restarts: both reconnect by themselves; the listener subscribes again.
        await broker.stop()
        #expect(await heard.event(within: .seconds(20)) { if case .disconnected = $0 { true } else { false } } != nil)
        try await broker.start()
        #expect(await heard.event(within: .seconds(40)) { $0 == .connected } != nil)
        #expect(await told.event(within: .seconds(40)) { $0 == .connected } != nil)
        // `.connected` waits for the broker's SUBACKs: a message the speaker publishes at once,
        // not retained, reaches the listener (when it meant "subscriptions sent", it arrived
        // before the subscription 1 full suite in 20).
        let again = try speaker.publish(MQTTMessage(topic: "t/again", payload: [4]))
        #expect(await told.event(within: .seconds(20)) { $0 == .published(mid: again) } != nil)
        #expect(await heard.event(within: .seconds(20)) { if case .message(let m) = $0 { m.topic == "t/again" && m.payload == [4] } else { false } } != nil)

        // A clean stop with last words: the retained state is `offline`.
        await speaker.stop(lastWords: MQTTMessage(topic: "t/state", payload: Array("offline".utf8), retain: true))
        #expect(await heard.event(within: .seconds(20)) { if case .message(let m) = $0 { m.topic == "t/state" && m.payload == Array("offline".utf8) } else { false } } != nil)
        await listener.stop()
        await broker.stop()
    }

    @Test("a broker that is down at start is reached once it comes up; a stop during the back-off ends the client",
          .enabled(if: MosquittoBroker.available, "\(MosquittoBroker.skipReason)"), .timeLimit(.minutes(2)))
    func lateBroker() async throws {
        let broker = try await MosquittoBroker()
        await broker.stop()
        let client = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "late", reconnectDelayMax: 2))
        let events = MQTTEventLog(client.events)
        try client.start()
        // The first attempt has failed (nothing listens) before the broker comes up.
        #expect(await events.event(within: .seconds(20)) { if case .disconnected = $0 { true } else { false } } != nil)
        try await broker.start()
        #expect(await events.event(within: .seconds(40)) { $0 == .connected } != nil)
        await client.stop()

        await broker.stop()
        let waiting = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "waiting",
                                                          reconnectDelay: 30, reconnectDelayMax: 30))
        let waited = MQTTEventLog(waiting.events)
        try waiting.start()
        #expect(await waited.event(within: .seconds(20)) { if case .disconnected = $0 { true } else { false } } != nil)
        // Now in a 30 s back-off: the stop wakes the thread, which ends, and the events end.
        await waiting.stop()
        #expect(await waited.event(within: .seconds(20)) { _ in true } == nil)
    }

    @Test("a client whose descriptors are numbered above 1023 (FD_SETSIZE) connects",
          .enabled(if: MosquittoBroker.available, "\(MosquittoBroker.skipReason)"), .timeLimit(.minutes(1)))
    func highDescriptors() async throws {
        let broker = try await MosquittoBroker()
        // Fill every descriptor number up to 1100, so the client's socket pair and its
        // connection get higher ones (the test suite reaches such numbers by itself at times).
        var ballast: [Int32] = []
        while (ballast.last ?? 0) < 1_100 {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            try #require(fd >= 0, "cannot open more descriptors (RLIMIT_NOFILE): \(String(cString: strerror(errno)))")
            ballast.append(fd)
        }
        defer { ballast.forEach { close($0) } }
        let client = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "high"))
        let events = MQTTEventLog(client.events)
        try client.start()
        let connected = await events.event(within: .seconds(20)) { $0 == .connected }
        #expect(connected != nil, "never connected with descriptors above \(ballast.last ?? 0)")
        await client.stop()
        await broker.stop()
    }

    @Test("a TLS handshake that fails (a CA that did not sign the broker) is reported and tried again",
          .enabled(if: MosquittoBroker.available && TestCertificates.available, "\(MosquittoBroker.skipReason), or no openssl"),
          .timeLimit(.minutes(1)))
    func failedHandshakeRetried() async throws {
        let directory = try TemporaryDirectory(prefix: "mqtt-tls-retry")
        defer { directory.remove() }
        let certificates = try await runBlocking { try TestCertificates(in: directory) }
        let broker = try await MosquittoBroker(security: .init(certificates: certificates))
        let client = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "wrong-ca",
                                                         caFile: certificates.otherCAFile, reconnectDelayMax: 1))
        let events = MQTTEventLog(client.events)
        try client.start()
        // One attempt logs the verification failure at most twice: four mean it was tried
        // again (libmosquitto's own loop gave up after the first).
        var problems: [String] = []
        while problems.count < 4, let event = await events.event(within: .seconds(20), { if case .problem = $0 { true } else { false } }),
              case .problem(let line) = event {
            problems.append(line)
        }
        #expect(problems.count == 4, "\(problems)")
        #expect(problems.allSatisfy { $0.localizedCaseInsensitiveContains("certificate") }, "\(problems)")
        await client.stop()
        await broker.stop()
    }

    @Test("the test broker's command gets SIGTERM when the thread that started it ends (so a killed test process leaves no broker)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: MosquittoBroker.setpriv), "no \(MosquittoBroker.setpriv)"),
          .timeLimit(.minutes(1)))
    func brokerDiesWithParent() async throws {
        let directory = try TemporaryDirectory(prefix: "pdeathsig")
        defer { directory.remove() }
        // The child says "ready" through a FIFO once `setpriv` has asked for the signal and
        // exec'd the shell; then it sleeps 30 s (without the signal it ends by itself, status 0).
        let fifo = directory.appending("ready")
        #expect(mkfifo(fifo, 0o600) == 0)
        let command = MosquittoBroker.diesWithParent("/bin/sh", ["-c", "echo ready; exec /bin/sleep 30"])
        // Started from a thread that ends (as every thread of a killed test process does) once the
        // child is ready: a thread that ended before the child asked is not the parent it asks
        // about (the broker's thread waits for the broker, so it always is).
        let child = try await runBlocking { () -> ChildProcess in
            // Opened before the spawn (read and write, so the open does not wait for a writer): the
            // child's open of its end then does not block the spawn.
            let reader = open(fifo, O_RDWR | O_CLOEXEC)
            defer { close(reader) }
            let child = try ChildProcess(executable: command.executable, arguments: command.arguments, stdoutPath: fifo, stderrPath: nil)
            var byte: UInt8 = 0
            _ = read(reader, &byte, 1)  // blocks until the child wrote its line
            return child
        }
        let status = try await runBlocking { child.waitUntilExit() }
        #expect(status == 128 + SIGTERM, "the child ended with \(status)")
    }
}
