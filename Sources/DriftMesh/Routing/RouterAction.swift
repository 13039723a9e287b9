/// What the caller of `MeshRouter` must do next.
public enum RouterAction: Sendable, Equatable {
    /// First reception of a packet for us (a broadcast, or `destination == me`): hand it up.
    case deliver(PacketKey)
    /// Send this frame now: our own packet, a relay (header already `relayed(by: me)`),
    /// or a one-time implicit-ack retry of a frame we sent before. `powerDbm`: transmit
    /// power the router chose (power control: a relay that only needs to reach near
    /// uncovered neighbours transmits lower); `nil` = the radio's configured power.
    case transmit(MeshHeader, powerDbm: Int? = nil)
    /// A planned relay was dropped as redundant. If the caller still holds the frame in
    /// its transmit queue (waiting for a clear channel), it drops it too.
    case cancelled(PacketKey)
    /// Time for our hello beacon: the caller builds it from `helloPayload(publicKey:now:)`.
    case sendHello
    /// Time for our topology advert (``MeshRouterConfiguration/topologyPlan``): flood the
    /// payload of `topologyAdvert(now:)` as a `topology` packet of our own.
    case sendTopology
}
