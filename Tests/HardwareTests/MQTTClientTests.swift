import Foundation
import Synchronization
import Hardware
import Testing
import TestSupport

/// The libmosquitto client against a real Mosquitto on loopback.
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
        let heard = EventLog(listener.events)
        let told = EventLog(speaker.events)
        try listener.start()
        #expect(await heard.next { $0 == .connected } != nil)
        try speaker.start()
        #expect(await told.next { $0 == .connected } != nil)
        let online = await heard.next { if case .message(let m) = $0 { m.topic == "t/state" } else { false } }
        #expect(online == .message(MQTTMessage(topic: "t/state", payload: Array("online".utf8), qos: 1, retain: false)))

        let mid = try speaker.publish(MQTTMessage(topic: "t/frame", payload: [1, 2, 3]))
        #expect(await told.next { $0 == .published(mid: mid) } != nil)
        #expect(await heard.next { if case .message(let m) = $0 { m.topic == "t/frame" && m.payload == [1, 2, 3] } else { false } } != nil)

        // The broker restarts: both reconnect by themselves; the listener subscribes again.
        await broker.stop()
        #expect(await heard.next { if case .disconnected = $0 { true } else { false } } != nil)
        try await broker.start()
        #expect(await heard.next(timeout: .seconds(40)) { $0 == .connected } != nil)
        #expect(await told.next(timeout: .seconds(40)) { $0 == .connected } != nil)
        let again = try speaker.publish(MQTTMessage(topic: "t/frame", payload: [4]))
        #expect(await told.next { $0 == .published(mid: again) } != nil)
        #expect(await heard.next { if case .message(let m) = $0 { m.payload == [4] } else { false } } != nil)

        // A clean stop with last words: the retained state is `offline`.
        speaker.stop(lastWords: MQTTMessage(topic: "t/state", payload: Array("offline".utf8), retain: true))
        #expect(await heard.next { if case .message(let m) = $0 { m.topic == "t/state" && m.payload == Array("offline".utf8) } else { false } } != nil)
        listener.stop()
        await broker.stop()
    }

    @Test("a broker that is down at start is reached once it comes up",
          .enabled(if: MosquittoBroker.available, "\(MosquittoBroker.skipReason)"), .timeLimit(.minutes(2)))
    func lateBroker() async throws {
        let broker = try await MosquittoBroker()
        await broker.stop()
        let client = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "late", reconnectDelayMax: 2))
        let events = EventLog(client.events)
        try client.start()
        try await Task.sleep(for: .seconds(1))
        try await broker.start()
        #expect(await events.next(timeout: .seconds(40)) { $0 == .connected } != nil)
        client.stop()
        await broker.stop()
    }
}

/// Collects a client's events on a task of its own, so waits can time out.
final class EventLog: Sendable {
    private final class Buffer: Sendable {
        let events = Mutex<[MQTTEvent]>([])
    }

    private let buffer = Buffer()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<MQTTEvent>) {
        let buffer = self.buffer
        task = Task { for await event in stream { buffer.events.withLock { $0.append(event) } } }
    }

    deinit { task.cancel() }

    /// Removes and returns the first event matching `match`, waiting up to `timeout`; older events are dropped.
    func next(timeout: Duration = .seconds(20), _ match: @escaping @Sendable (MQTTEvent) -> Bool) async -> MQTTEvent? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let found = buffer.events.withLock { events -> MQTTEvent? in
                guard let index = events.firstIndex(where: match) else { return nil }
                let event = events[index]
                events.removeFirst(index + 1)
                return event
            }
            if let found { return found }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
