import CMosquitto
import Foundation
import Synchronization

/// An MQTT 3.1.1 client on libmosquitto: TLS and username/password from the configuration,
/// reconnects by itself with exponential back-off, a retained last will and birth message,
/// re-subscribes on every connect.
///
/// libmosquitto runs its network loop on a thread of its own (`mosquitto_loop_start`); its
/// callbacks only copy what they get into ``events`` (an `AsyncStream`), so no Swift task
/// ever blocks on the network. ``publish(_:)`` hands a message to libmosquitto and returns its
/// message id at once; the PUBACK arrives later as ``MQTTEvent/published(mid:)``.
public final class MQTTClient: Sendable {
    /// The callbacks' view of the client: the stream to feed and what to do on connect.
    final class Context: Sendable {
        let continuation: AsyncStream<MQTTEvent>.Continuation
        let configuration: MQTTClientConfiguration

        init(continuation: AsyncStream<MQTTEvent>.Continuation, configuration: MQTTClientConfiguration) {
            self.continuation = continuation
            self.configuration = configuration
        }
    }

    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Everything the client reports, in order; ends after ``stop()``.
    public let events: AsyncStream<MQTTEvent>
    public let configuration: MQTTClientConfiguration
    private let context: Context
    private let handle: Handle
    private let state = Mutex((started: false, stopped: false))

    private static let libraryReady: Bool = {
        mosquitto_lib_init()
        return true
    }()

    /// Makes the client; nothing touches the network until ``start()``.
    public init(configuration: MQTTClientConfiguration) throws(MQTTError) {
        _ = Self.libraryReady
        self.configuration = configuration
        let (stream, continuation) = AsyncStream.makeStream(of: MQTTEvent.self, bufferingPolicy: .bufferingOldest(16_384))
        events = stream
        let context = Context(continuation: continuation, configuration: configuration)
        self.context = context
        guard let mosq = mosquitto_new(configuration.clientID, true, Unmanaged.passUnretained(context).toOpaque()) else {
            throw MQTTError(operation: "new", code: Int32(errno), reason: String(cString: strerror(errno)))
        }
        handle = Handle(pointer: mosq)
        do {
            try Self.check("protocol", mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)))
            try Self.check("inflight", mosquitto_max_inflight_messages_set(mosq, UInt32(max(1, configuration.maxInflight))))
            try Self.check("reconnect delay", mosquitto_reconnect_delay_set(
                mosq, UInt32(max(1, configuration.reconnectDelay)), UInt32(max(configuration.reconnectDelay, configuration.reconnectDelayMax)), true))
            if configuration.username != nil || configuration.password != nil {
                try Self.check("credentials", mosquitto_username_pw_set(mosq, configuration.username, configuration.password))
            }
            if let ca = configuration.caFile {
                try Self.check("tls", mosquitto_tls_set(mosq, ca, nil, configuration.certFile, configuration.keyFile, nil))
            }
            if let will = configuration.will {
                try Self.check("will", will.payload.withUnsafeBytes { raw in
                    mosquitto_will_set(mosq, will.topic, Int32(raw.count), raw.baseAddress, Int32(will.qos), will.retain)
                })
            }
        } catch {
            mosquitto_destroy(mosq)
            throw error
        }
        mosquitto_connect_callback_set(mosq) { mosq, object, rc in
            guard let mosq, let object else { return }
            let context = Unmanaged<Context>.fromOpaque(object).takeUnretainedValue()
            guard rc == 0 else {
                context.continuation.yield(.refused(reason: String(cString: mosquitto_connack_string(rc))))
                return
            }
            for filter in context.configuration.subscriptions {
                _ = mosquitto_subscribe(mosq, nil, filter, 1)
            }
            if let birth = context.configuration.birth {
                _ = birth.payload.withUnsafeBytes { raw in
                    mosquitto_publish(mosq, nil, birth.topic, Int32(raw.count), raw.baseAddress, Int32(birth.qos), birth.retain)
                }
            }
            context.continuation.yield(.connected)
        }
        mosquitto_disconnect_callback_set(mosq) { _, object, rc in
            guard let object else { return }
            Unmanaged<Context>.fromOpaque(object).takeUnretainedValue().continuation.yield(.disconnected(reason: rc))
        }
        mosquitto_log_callback_set(mosq) { _, object, level, line in
            guard let object, let line, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
            Unmanaged<Context>.fromOpaque(object).takeUnretainedValue().continuation.yield(.problem(String(cString: line)))
        }
        mosquitto_publish_callback_set(mosq) { _, object, mid in
            guard let object else { return }
            Unmanaged<Context>.fromOpaque(object).takeUnretainedValue().continuation.yield(.published(mid: mid))
        }
        mosquitto_message_callback_set(mosq) { _, object, message in
            guard let object, let message, let topic = message.pointee.topic else { return }
            let length = Int(max(0, message.pointee.payloadlen))
            let payload = message.pointee.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
            let copy = MQTTMessage(topic: String(cString: topic), payload: payload, qos: Int(message.pointee.qos), retain: message.pointee.retain)
            Unmanaged<Context>.fromOpaque(object).takeUnretainedValue().continuation.yield(.message(copy))
        }
    }

    deinit {
        stop()
        mosquitto_destroy(handle.pointer)
    }

    /// Starts the network thread and the first connection attempt. A broker that is down is
    /// retried with back-off; ``MQTTEvent/connected`` says when it worked.
    public func start() throws(MQTTError) {
        let proceed = state.withLock { state -> Bool in
            guard !state.started, !state.stopped else { return false }
            state.started = true
            return true
        }
        guard proceed else { return }
        try Self.check("loop start", mosquitto_loop_start(handle.pointer))
        let rc = mosquitto_connect_async(handle.pointer, configuration.host, Int32(configuration.port), Int32(max(5, configuration.keepalive)))
        // A refused or unreachable broker is retried by the loop thread; bad arguments are not.
        if rc == MOSQ_ERR_INVAL.rawValue { throw Self.error("connect", rc) }
    }

    /// Queues `message` and returns its message id (QoS 0 messages are sent at once).
    /// Fails when the message is refused (too large, bad topic); while disconnected,
    /// libmosquitto reports `no connection` and the caller keeps the message.
    @discardableResult
    public func publish(_ message: MQTTMessage) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { raw in
            mosquitto_publish(handle.pointer, &mid, message.topic, Int32(raw.count), raw.baseAddress, Int32(message.qos), message.retain)
        }
        try Self.check("publish", rc)
        return mid
    }

    /// Disconnects cleanly (no last will), stops the network thread and ends ``events``.
    /// Returns when the thread has stopped (a few milliseconds); call it off the cooperative pool
    /// when that matters.
    public func stop(lastWords: MQTTMessage? = nil) {
        let proceed = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.stopped = true
            return state.started
        }
        if proceed {
            if let lastWords { _ = try? publish(lastWords) }
            mosquitto_disconnect(handle.pointer)
            mosquitto_loop_stop(handle.pointer, false)
        }
        context.continuation.finish()
    }

    private static func check(_ operation: String, _ rc: Int32) throws(MQTTError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw error(operation, rc) }
    }

    private static func error(_ operation: String, _ rc: Int32) -> MQTTError {
        let reason = rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
        return MQTTError(operation: operation, code: rc, reason: reason)
    }
}
