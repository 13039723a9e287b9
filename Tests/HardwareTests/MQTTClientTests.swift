import Foundation
import Hardware
import Testing
import TestSupport

/// The libmosquitto client against a real Mosquitto on loopback.
@Suite("MQTT client on a real broker", .serialized)
struct MQTTClientTests {
    /// The next event matching `match`, at most `timeout`.
    static func next(_ iterator: inout AsyncStream<MQTTEvent>.Iterator, timeout: Duration = .seconds(20),
                     _ match: (MQTTEvent) -> Bool) async -> MQTTEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let event = await iterator.next() else { return nil }
            if match(event) { return event }
        }
        return nil
    }

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
        var heard = listener.events.makeAsyncIterator()
        var told = speaker.events.makeAsyncIterator()
        try listener.start()
        #expect(await Self.next(&heard) { $0 == .connected } != nil)
        try speaker.start()
        #expect(await Self.next(&told) { $0 == .connected } != nil)
        let online = await Self.next(&heard) { if case .message(let m) = $0 { m.topic == "t/state" } else { false } }
        #expect(online == .message(MQTTMessage(topic: "t/state", payload: Array("online".utf8), qos: 1, retain: false)))

        let mid = try speaker.publish(MQTTMessage(topic: "t/frame", payload: [1, 2, 3]))
        #expect(await Self.next(&told) { $0 == .published(mid: mid) } != nil)
        #expect(await Self.next(&heard) { if case .message(let m) = $0 { m.topic == "t/frame" && m.payload == [1, 2, 3] } else { false } } != nil)

        // The broker restarts: both reconnect by themselves; the listener subscribes again.
        await broker.stop()
        #expect(await Self.next(&heard) { if case .disconnected = $0 { true } else { false } } != nil)
        try await broker.start()
        #expect(await Self.next(&heard, timeout: .seconds(40)) { $0 == .connected } != nil)
        #expect(await Self.next(&told, timeout: .seconds(40)) { $0 == .connected } != nil)
        let again = try speaker.publish(MQTTMessage(topic: "t/frame", payload: [4]))
        #expect(await Self.next(&told) { $0 == .published(mid: again) } != nil)
        #expect(await Self.next(&heard) { if case .message(let m) = $0 { m.payload == [4] } else { false } } != nil)

        // A clean stop with last words: the retained state is `offline`.
        speaker.stop(lastWords: MQTTMessage(topic: "t/state", payload: Array("offline".utf8), retain: true))
        #expect(await Self.next(&heard) { if case .message(let m) = $0 { m.topic == "t/state" && m.payload == Array("offline".utf8) } else { false } } != nil)
        listener.stop()
        await broker.stop()
    }

    @Test("a broker that is down at start is reached once it comes up",
          .enabled(if: MosquittoBroker.available, "\(MosquittoBroker.skipReason)"), .timeLimit(.minutes(2)))
    func lateBroker() async throws {
        let broker = try await MosquittoBroker()
        await broker.stop()
        let client = try MQTTClient(configuration: .init(host: "127.0.0.1", port: broker.port, clientID: "late", reconnectDelayMax: 2))
        var events = client.events.makeAsyncIterator()
        try client.start()
        try await Task.sleep(for: .seconds(1))
        try await broker.start()
        #expect(await Self.next(&events, timeout: .seconds(40)) { $0 == .connected } != nil)
        client.stop()
        await broker.stop()
    }
}
