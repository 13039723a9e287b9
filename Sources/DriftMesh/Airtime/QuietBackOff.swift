/// Listen before talk as the channel turns quiet: which frames wait 1…4 contention slots when
/// they come ready less than a slot after a frame the radio heard ended.
///
/// The frame just heard is most often what made the next one ready — an acknowledgement, a
/// digest's answer, the origin's next message — while that frame's sender sends its own next
/// frame at once; without the wait the two start in the same millisecond, each deaf to the
/// other (the daemon's `radioQuietWaits`; the simulator models the same rule). A relay of
/// another box's data packet keeps its slot: its delay, counted from the end of the copy it
/// heard, already orders it among the other relays (rank, SNR, jitter), and drawing 1…4 slots
/// again shuffles that order — in the simulator, with every frame waiting, the daemon's node
/// spent 9–16 % more data airtime at 20–50 boxes under load and reached 5.6 points fewer boxes
/// at 50 (issue 19's ninth session, `docs/mesh-simulation.md`).
public enum QuietBackOff {
    /// The window, in contention slots, that both this back-off and listen before talk's looks on a
    /// busy channel draw from (1…this many): the daemon's `MeshService` and the simulator's
    /// `SimParameters.lookSlots` default alike. 8 until issue 19's session of 2026-12-06; 4 took the
    /// daemon's node's data airtime down 8 % at 30–50 boxes under load in the simulator
    /// (`docs/mesh-simulation.md`, "Fewer slots a look").
    public static let windowSlots = 4

    /// Whether the frame with `header`, about to go from box `me`, waits 1…4 slots when it comes
    /// ready less than a slot after the channel turned quiet. `header` `nil` (a frame that does
    /// not parse): it waits.
    public static func applies(to header: MeshHeader?, me: NodeID) -> Bool {
        guard let header else { return true }
        return !header.isRelayedData(by: me)
    }
}

extension MeshHeader {
    /// A copy of another box's broadcast, directed message or acknowledgement that box `me`
    /// passes on (a relay, a retry passed on, a catch-up copy).
    public func isRelayedData(by me: NodeID) -> Bool {
        origin != me && kind.carriesData
    }
}
