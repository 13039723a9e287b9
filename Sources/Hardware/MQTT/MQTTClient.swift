import CMosquitto
import Foundation
import Synchronization

/// An MQTT 3.1.1 client on libmosquitto: TLS and username/password from the configuration,
/// reconnects by itself with exponential back-off, a retained last will and birth message,
/// re-subscribes on every connect.
///
/// The network runs on one thread of the client's own (``MQTTNetworkThread``: started by
/// ``start()``, joined by ``stop(lastWords:)``; why not libmosquitto's own thread is said
/// there). libmosquitto's callbacks run on that thread and only copy what they get into
/// ``events`` (an `AsyncStream`), so no Swift task ever blocks on the network.
/// ``publish(_:)`` hands a message to libmosquitto and returns its message id at once; the
/// PUBACK arrives later as ``MQTTEvent/published(mid:)``.
public final class MQTTClient: Sendable {
    /// The callbacks' view of the client: the stream to feed and what to do on connect.
    final class Context: Sendable {
        let continuation: AsyncStream<MQTTEvent>.Continuation
        let configuration: MQTTClientConfiguration
        /// Whether the broker accepted the current connection attempt (its CONNACK said yes).
        let accepted = Mutex(false)
        /// The subscriptions of the current connection the broker has not acknowledged yet,
        /// by SUBSCRIBE message id: ``MQTTEvent/connected`` waits for the last SUBACK.
        let unacknowledged = Mutex<[Int32: String]>([:])

        init(continuation: AsyncStream<MQTTEvent>.Continuation, configuration: MQTTClientConfiguration) {
            self.continuation = continuation
            self.configuration = configuration
        }
    }

    /// libmosquitto's client; its calls are safe from several threads in threaded mode.
    struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Everything the client reports, in order; ends after ``stop()``.
    public let events: AsyncStream<MQTTEvent>
    public let configuration: MQTTClientConfiguration
    private let context: Context
    private let handle: Handle
    private let network: MQTTNetworkThread

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
            // Our own thread runs the network while others publish: libmosquitto must lock.
            try Self.check("threaded", mosquitto_threaded_set(mosq, true))
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
            let delay = max(1, configuration.reconnectDelay)
            network = try MQTTNetworkThread(mosq: handle, context: context, settings: .init(
                host: configuration.host, port: configuration.port, keepalive: max(5, configuration.keepalive),
                delay: .seconds(delay), delayMax: .seconds(max(delay, configuration.reconnectDelayMax))))
        } catch let error as MQTTError {
            mosquitto_destroy(mosq)
            throw error
        } catch {
            mosquitto_destroy(mosq)
            throw MQTTError(operation: "network thread", code: MOSQ_ERR_ERRNO.rawValue, reason: "\(error)")
        }
        mosquitto_connect_callback_set(mosq) { mosq, object, rc in
            guard let mosq, let object else { return }
            let context = Unmanaged<Context>.fromOpaque(object).takeUnretainedValue()
            guard rc == 0 else {
                context.continuation.yield(.refused(reason: String(cString: mosquitto_connack_string(rc))))
                return
            }
            context.accepted.withLock { $0 = true }
            // The SUBACKs come on this same thread, after this callback: none can be missed.
            var sent: [Int32: String] = [:]
            for filter in context.configuration.subscriptions {
                var mid: Int32 = 0
                let rc = mosquitto_subscribe(mosq, &mid, filter, 1)
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    sent[mid] = filter
                } else {
                    context.continuation.yield(.problem("subscribing to \(filter) failed: \(String(cString: mosquitto_strerror(rc)))"))
                }
            }
            context.unacknowledged.withLock { $0 = sent }
            if let birth = context.configuration.birth {
                _ = birth.payload.withUnsafeBytes { raw in
                    mosquitto_publish(mosq, nil, birth.topic, Int32(raw.count), raw.baseAddress, Int32(birth.qos), birth.retain)
                }
            }
            if sent.isEmpty { context.continuation.yield(.connected) }
        }
        mosquitto_subscribe_callback_set(mosq) { _, object, mid, count, granted in
            guard let object else { return }
            let context = Unmanaged<Context>.fromOpaque(object).takeUnretainedValue()
            let (filter, last) = context.unacknowledged.withLock { pending -> (String?, Bool) in
                guard let filter = pending.removeValue(forKey: mid) else { return (nil, false) }
                return (filter, pending.isEmpty)
            }
            guard let filter else { return }
            // 0x80 in SUBACK: the broker refused the subscription (e.g. its ACL).
            if let granted, count > 0, granted[0] == 0x80 {
                context.continuation.yield(.problem("the broker refused the subscription to \(filter)"))
            }
            if last { context.continuation.yield(.connected) }
        }
        mosquitto_disconnect_callback_set(mosq) { _, object, rc in
            guard let object else { return }
            let context = Unmanaged<Context>.fromOpaque(object).takeUnretainedValue()
            context.unacknowledged.withLock { $0 = [:] }
            context.continuation.yield(.disconnected(reason: rc))
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

    /// Starts the network thread, which connects and keeps connecting: a broker that is down is
    /// retried with back-off; ``MQTTEvent/connected`` says when it worked. Fails only for
    /// settings no attempt can use (no host, a port out of range) or when no thread can start.
    public func start() throws(MQTTError) {
        guard !configuration.host.isEmpty, (1...65_535).contains(configuration.port) else {
            throw MQTTError(operation: "connect", code: MOSQ_ERR_INVAL.rawValue,
                            reason: "no broker at host \"\(configuration.host)\" port \(configuration.port)")
        }
        do {
            try network.start()
        } catch {
            throw MQTTError(operation: "start", code: MOSQ_ERR_ERRNO.rawValue, reason: "\(error)")
        }
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
        network.wake()
        return mid
    }

    /// Publishes `lastWords` (when connected), disconnects cleanly (no last will), joins the
    /// network thread and ends ``events``. Blocks for up to about two seconds (a DISCONNECT that
    /// cannot leave is given up then): from Swift concurrency, the `async` variant.
    public func stop(lastWords: MQTTMessage? = nil) {
        network.stop(lastWords: lastWords)
        context.continuation.finish()
    }

    /// ``stop(lastWords:)`` that waits for the network thread without holding a thread of the
    /// cooperative pool (the thread says when it has finished; it is joined then).
    public func stop(lastWords: MQTTMessage? = nil) async {
        await network.stop(lastWords: lastWords)
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
