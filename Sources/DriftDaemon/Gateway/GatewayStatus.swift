/// `mqtt.status`: the gateway's connection, role, outbox and counters.
public struct GatewayStatus: Sendable, Codable, Equatable {
    public var node: String
    public var network: String
    public var prefix: String
    public var connected: Bool
    /// Why the broker is not reached (its refusal, a TLS or name lookup error); `nil` while connected.
    public var problem: String?
    public var forwarder: Bool
    public var gatewaysOnline: [String]
    public var outboxQueued: Int
    public var outboxDropped: Int
    public var inflight: Int
    public var counters: GatewayCounters
}
