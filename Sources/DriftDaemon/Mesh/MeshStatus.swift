import DriftMesh

/// The mesh's state for `driftd mesh status` (JSON over the control socket).
public struct MeshStatus: Sendable, Codable, Equatable {
    public struct Neighbour: Sendable, Codable, Equatable {
        public var id: String
        public var rssi: Double
        public var snr: Double
        public var lastHeardSecondsAgo: Double
        /// How many neighbours this neighbour reports (2-hop knowledge).
        public var theirNeighbours: Int
    }

    public struct Outbox: Sendable, Codable, Equatable {
        public var queued: Int
        public var sent: Int
        public var delivered: Int
        public var failed: Int
    }

    /// This box's mesh address.
    public var node: String
    public var neighbours: [Neighbour]
    public var counters: MeshCounters
    public var outbox: Outbox
    public var heldPackets: Int
    public var heldBytes: Int
    /// Entries in the persisted seen-set.
    public var seen: Int
    /// Frames waiting in the transmit queue.
    public var queued: Int
    /// This box's own transmissions over the last hour, % of the time.
    public var airtimeUsedPercent: Double
    /// Channel busy (own and heard), % of the time.
    public var channelUtilisationPercent: Double
    /// With `mesh.topology_plan`: the boxes whose neighbour lists this box knows, itself
    /// included once it has sent its own advert (`nil`: the plan is off).
    public var topologyBoxes: Int?
    /// With `mesh.topology_plan`: the boxes named in a known list whose own list this box
    /// lacks (asked for by advert repair), and of those the ones named only across one-way
    /// links — a box that hears this one but is not heard here, or the other way round
    /// (docs/mesh-routing.md, "Lists across one-way links").
    public var topologyListsLacking: Int?
    public var topologyListsAcrossOneWayLinks: Int?
    /// Receptions the radio dropped before the mesh saw them (they did not decode).
    public var radioMalformed = 0
    /// Frames the radio could not hear because it was transmitting while they were on the air
    /// (the simulated radio counts them; hardware radios say 0).
    public var radioDeaf = 0
    /// Frames lost at the radio to another frame on the air at the same time (the simulated
    /// radio counts them; hardware radios say 0).
    public var radioCollided = 0
    /// Transmissions the radio began over another already on the air whose carrier it read only
    /// later: the loopback radio's lag, which a hardware radio's channel activity detection does
    /// not have (the simulated radio counts them; hardware radios say 0).
    public var radioCarriersReadLate = 0
    /// Bursts the radio split into the packets run together in them (the E22, when its reader
    /// was late by more than the UART's idle gap; others say 0).
    public var radioSplitBursts = 0
    /// Whether the radio checks, while the channel is quiet, that its module still answers
    /// (`on`, `off`, `checking`; the E22 only): `off` on a strapped E22 whose ambient-noise read
    /// is off, which then goes unnoticed if it stops answering.
    public var radioIdleProbe: String?
    /// Transmissions held back because the radio heard another on the air (listen before talk;
    /// radios with carrier sense only).
    public var radioBusyWaits = 0
    /// Transmissions that came ready within a contention slot of the channel turning quiet and
    /// drew a back-off first (radios with carrier sense only).
    public var radioQuietWaits = 0
    /// Transmissions the radio already held that waited for the acknowledgement of a box this
    /// one cannot hear, to a neighbour's directed frame just heard
    /// (`MeshNodeMachine.Settings.quietForHiddenAnswers`; frames still queued are counted in
    /// `counters.hiddenAnswerWaits` with the rest).
    public var radioAnswerWaits = 0
    /// Time since start this box's frames waited for its duty-cycle airtime budget, seconds
    /// (the queue's most urgent frame waiting for airtime to come free; 0 where the band has
    /// no duty cycle). What the budget costs the mesh here: a box that relays for many others
    /// runs out first.
    public var budgetHeldSeconds = 0.0
}
