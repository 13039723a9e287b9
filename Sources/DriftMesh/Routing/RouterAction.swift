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
    /// Time for the follow-up hello of our start (``MeshRouterConfiguration/helloFollowsUpStart``):
    /// built the same way, it leaves the hello schedule as it is; the node sends it without its
    /// key (see `MeshNodeMachine.sendFollowUpHello(at:)`).
    case sendFollowUpHello
    /// Time for our topology advert (``MeshRouterConfiguration/topologyPlan``): flood the
    /// payload of `topologyAdvert(now:)` as a `topology` packet of our own.
    case sendTopology
    /// Ask the neighbours for these boxes' topology adverts, which we lack (advert repair,
    /// ``MeshRouterConfiguration/topologyRepair``): send a one-hop `request` frame carrying a
    /// ``TopologyRequest``.
    case requestTopology([NodeID])
    /// Send again the advert this header names (another box's, or our own), which a neighbour
    /// asked for: the stored frame with this header's hop count and relayer (a relay of the copy
    /// we got, so the boxes that lack it relay it on as they would the flood).
    case answerTopology(MeshHeader)
}
