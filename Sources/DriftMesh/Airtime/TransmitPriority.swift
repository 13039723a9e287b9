/// Priority class of an outgoing frame, highest last so `Comparable` orders by urgency.
public enum TransmitPriority: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Reconciliation digests, hellos: waits while the channel is busy.
    case background = 0
    /// Bottles.
    case normal = 1
    /// Chat lines and acknowledgements.
    case interactive = 2
    /// Emergency traffic: always first, and the only class that may use the budget's reserve.
    case emergency = 3

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .background: "background"
        case .normal: "normal"
        case .interactive: "interactive"
        case .emergency: "emergency"
        }
    }
}

/// A frame waiting to go on air: opaque bytes plus what the queue needs to schedule it.
public struct OutgoingFrame: Sendable, Hashable {
    /// Caller's identifier (e.g. derived from the frame's `PacketKey`), reported back on drops.
    public var id: UInt64
    public var bytes: [UInt8]
    /// Time on air of `bytes` with the radio's modulation (``LoRaAirtime/duration(payloadBytes:modulation:)``).
    public var airtime: Duration
    public var priority: TransmitPriority

    public init(id: UInt64, bytes: [UInt8], airtime: Duration, priority: TransmitPriority) {
        self.id = id
        self.bytes = bytes
        self.airtime = airtime
        self.priority = priority
    }

    /// A frame whose airtime is computed from its length and `modulation`.
    public init(id: UInt64, bytes: [UInt8], modulation: LoRaModulation, priority: TransmitPriority) {
        self.init(id: id, bytes: bytes, airtime: LoRaAirtime.duration(payloadBytes: bytes.count, modulation: modulation),
                  priority: priority)
    }
}
