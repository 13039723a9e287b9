import DriftMesh

/// What the simulator needs of a router: `MeshRouter` (production, unchanged) and
/// `ManagedFloodingRouter` both provide it.
public protocol SimRouting: Sendable {
    mutating func originate(_ header: MeshHeader, now: Duration) -> [RouterAction]
    mutating func heard(_ header: MeshHeader, link: LinkQuality, firstTime: Bool, now: Duration) -> [RouterAction]
    mutating func heardHello(from: NodeID, payload: HelloPayload, link: LinkQuality, now: Duration) -> [RouterAction]
    func helloPayload(publicKey: [UInt8]?, now: Duration) -> HelloPayload
    mutating func due(now: Duration) -> [RouterAction]
    var nextDeadline: Duration? { get }
    /// The channel was busy when `header`'s frame came to the front of the radio queue:
    /// how long to wait before trying again (`nil`: the simulator's default back-off).
    mutating func channelBusyDelay(for header: MeshHeader, now: Duration) -> Duration?
    /// `header`'s frame left the radio queue and went on air.
    mutating func wentOnAir(_ header: MeshHeader, now: Duration)
}

extension SimRouting {
    public mutating func channelBusyDelay(for header: MeshHeader, now: Duration) -> Duration? { nil }
    public mutating func wentOnAir(_ header: MeshHeader, now: Duration) {}
}

extension MeshRouter: SimRouting {
    /// A relay of another box's data re-draws its planned delay with
    /// ``SimParameters/relaysRedrawWhenBusy`` (``MeshRouter/busyRedrawDelay(for:now:)``); else
    /// `nil`, the simulator's listen before talk (1…`lookSlots` slots).
    public mutating func channelBusyDelay(for header: MeshHeader, now: Duration) -> Duration? {
        busyRedrawDelay(for: header, now: now)
    }
}

/// Which router the simulated boxes run.
public enum SimRouterKind: String, Sendable, CaseIterable {
    case ours
    case meshtastic
}
