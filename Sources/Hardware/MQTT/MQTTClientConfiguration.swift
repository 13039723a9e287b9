/// How an ``MQTTClient`` reaches its broker.
public struct MQTTClientConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var clientID: String
    public var keepalive: Int
    /// TLS: the CA file that signs the broker's certificate; `nil` = plain TCP.
    public var caFile: String?
    /// TLS client certificate and key (both or neither).
    public var certFile: String?
    public var keyFile: String?
    public var username: String?
    public var password: String?
    /// Published (retained, QoS 1) by the broker when the connection dies without a disconnect.
    public var will: MQTTMessage?
    /// Published (retained, QoS 1) on every connect, before anything else.
    public var birth: MQTTMessage?
    /// Topic filters subscribed (QoS 1) on every connect.
    public var subscriptions: [String]
    /// Reconnect back-off: first delay and the cap, seconds (exponential).
    public var reconnectDelay: Int
    public var reconnectDelayMax: Int
    /// QoS 1/2 messages in flight at once.
    public var maxInflight: Int

    public init(host: String, port: Int, clientID: String, keepalive: Int = 30, caFile: String? = nil,
                certFile: String? = nil, keyFile: String? = nil, username: String? = nil, password: String? = nil,
                will: MQTTMessage? = nil, birth: MQTTMessage? = nil, subscriptions: [String] = [],
                reconnectDelay: Int = 1, reconnectDelayMax: Int = 30, maxInflight: Int = 100) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.keepalive = keepalive
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.username = username
        self.password = password
        self.will = will
        self.birth = birth
        self.subscriptions = subscriptions
        self.reconnectDelay = reconnectDelay
        self.reconnectDelayMax = reconnectDelayMax
        self.maxInflight = maxInflight
    }
}

/// One MQTT application message.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}

/// What the client reports, in order.
public enum MQTTEvent: Sendable, Equatable {
    /// Connected (again): the broker acknowledged every subscription (a message published
    /// from now on reaches this client), and the birth message was sent. A connection that
    /// drops before the last SUBACK reports no `connected`.
    case connected
    /// The connection ended (`reason` 0 = asked for); the client reconnects by itself.
    case disconnected(reason: Int32)
    /// The broker answered the connect with a refusal (`reason`: libmosquitto's words for the
    /// CONNACK code, e.g. a wrong username or password); the client tries again with back-off.
    case refused(reason: String)
    /// An error libmosquitto logged while connecting (a TLS handshake that failed — unknown
    /// CA, wrong host name, a client certificate the broker wants —, a host that cannot be
    /// resolved); the client tries again with back-off.
    case problem(String)
    /// A message on a subscribed topic.
    case message(MQTTMessage)
    /// The broker acknowledged the publish with this message id (PUBACK for QoS 1).
    case published(mid: Int32)
}

/// An MQTT call that failed, with libmosquitto's reason.
public struct MQTTError: Error, CustomStringConvertible, Equatable {
    public var operation: String
    public var code: Int32
    public var reason: String

    public var description: String { "mqtt \(operation) failed: \(reason) (\(code))" }
}
