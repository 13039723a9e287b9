/// What a gateway did, for telemetry, `mqtt.status` and the bench.
public struct GatewayCounters: Sendable, Codable, Equatable {
    /// Frames handed over by the mesh node, and those this gateway put in the outbox to publish.
    public var offered = 0
    public var queued = 0
    /// Not published: another gateway of this mesh forwards, or the destination is local.
    public var standby = 0
    public var local = 0
    /// Repeats of a frame already published (not an end-to-end retry).
    public var repeats = 0
    /// Publishes acknowledged by the broker (PUBACK).
    public var published = 0
    /// Frames that came from the broker: injected into the mesh, and what the node said.
    public var received = 0
    /// Not injected: this gateway stands by, the forwarder of its radio mesh injects.
    public var standbyIn = 0
    public var injected = 0
    public var duplicates = 0
    /// Dropped from the broker, by reason (`empty`, `oversize`, `forged`, `foreign`, `expired`, …).
    public var dropped: [String: Int] = [:]
    /// Our own frames coming back from the broker (MQTT 3.1.1 has no "no local").
    public var echoes = 0
    /// Frames the hand-over buffer from the node dropped (the gateway fell behind).
    public var overflow = 0
    public var connects = 0
    public var disconnects = 0
    /// Connects the broker refused (a wrong username or password, a client id it will not take).
    public var refusals = 0
    /// Telemetry messages handed to the client.
    public var telemetry = 0

    public init() {}
}
