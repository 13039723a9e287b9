import Foundation

/// The instant a ``MeshNodeMachine`` input happens at, read by whoever drives the machine.
///
/// `monotonic` orders timers (router delays, the transmit queue, the quiet rule): an offset
/// from any fixed start, never going back. `wall` is calendar time for what is stored or
/// compared across boxes (expiry minutes, the outbox, the seen-set, delivery times).
public struct MeshNodeTime: Sendable, Hashable {
    public var monotonic: Duration
    public var wall: Date

    public init(monotonic: Duration, wall: Date) {
        self.monotonic = monotonic
        self.wall = wall
    }
}

/// Something that happened to a mesh node (``MeshNodeMachine/handle(_:at:)``).
public enum MeshNodeInput: Sendable {
    /// The radio heard a frame (its bytes and link).
    case heard(bytes: [UInt8], rssi: Double, snr: Double)
    /// A sealed frame from another mesh through a gateway; answered with ``MeshNodeAction/verdict(_:)``.
    case bridged([UInt8])
    /// An application's message to send; answered with ``MeshNodeAction/stored(_:)`` or
    /// ``MeshNodeAction/refused(_:)``.
    case send(MeshNodeMessage)
    /// A deadline the machine asked for (``MeshNodeAction/wake(at:)``) came, or may have:
    /// run whatever is due.
    case timer
    /// The radio is free: the machine answers with ``MeshNodeAction/transmit(_:)`` when a frame
    /// may go now, else with ``MeshNodeAction/wake(at:)`` when to ask again (nothing when idle).
    case radioIdle
    /// The radio failed to send the last frame handed out.
    case transmitFailed
    /// The driver's view of the channel changed (busy above its threshold, or not; the daemon
    /// and the simulator keep a ``ChannelBusyDetector``): the router's `channelBusy`.
    case channelBusy(Bool)
    /// The share (0…1) of the last window during which the driver heard frames
    /// (``ChannelBusyDetector/lastShare``), handed over with every frame heard before
    /// the frame itself: the router's `channelUtilisation`.
    case channelUtilisation(Double)
}

/// A message an application hands to the mesh (``MeshNodeInput/send(_:)``).
public struct MeshNodeMessage: Sendable, Hashable {
    /// The payload: an application port byte, then the body.
    public var payload: [UInt8]
    /// `nil` for a broadcast.
    public var destination: NodeID?
    public var priority: TransmitPriority
    /// Overrides the configured hop limit (capped at ``MeshNodeMachine/maximumHopLimit``).
    public var hopLimit: UInt8?
    /// Shortens the message's life below the configured lifetime.
    public var expiresAt: Date?

    public init(payload: [UInt8], destination: NodeID? = nil, priority: TransmitPriority = .normal,
                hopLimit: UInt8? = nil, expiresAt: Date? = nil) {
        self.payload = payload
        self.destination = destination
        self.priority = priority
        self.hopLimit = hopLimit
        self.expiresAt = expiresAt
    }
}

/// What the driver of a ``MeshNodeMachine`` must do, in order.
public enum MeshNodeAction: Sendable {
    /// Put this frame on the air now (already booked in the airtime budget).
    case transmit(OutgoingFrame)
    /// Give the machine ``MeshNodeInput/timer`` (after `.timer`) or ``MeshNodeInput/radioIdle``
    /// (after `.radioIdle`) at this monotonic instant, or earlier when something new happens.
    case wake(at: Duration)
    /// A message for this box's applications.
    case deliver(MeshNodeDelivery)
    /// The destination acknowledged one of this box's directed messages (its outbox key).
    case confirmed(PacketKey)
    /// Hand this frame to the gateway (only while ``MeshNodeMachine/bridging``).
    case bridge(BridgeFrame)
    /// The answer to ``MeshNodeInput/send(_:)``: stored in the outbox, first transmission queued.
    case stored(MeshNodeReceipt)
    /// The answer to ``MeshNodeInput/send(_:)``: not stored, and why.
    case refused(any Error)
    /// The answer to ``MeshNodeInput/bridged(_:)``.
    case verdict(BridgeVerdict)
    /// Something worth a log line.
    case log(MeshNodeLog)
}

/// A message the mesh delivered to this box.
public struct MeshNodeDelivery: Sendable, Hashable {
    /// The packet key of its first frame.
    public var key: PacketKey
    public var origin: NodeID
    /// `nil` for a broadcast.
    public var destination: NodeID?
    /// Relays between the origin and this box.
    public var hops: Int
    /// The reassembled payload (port byte, then the body; never empty).
    public var payload: [UInt8]
    /// Frames that carried it (1 unless fragmented).
    public var frames: Int
    public var receivedAt: Date
}

/// What ``MeshNodeInput/send(_:)`` stored.
public struct MeshNodeReceipt: Sendable, Codable, Equatable {
    public var id: String
    public var packetID: UInt32
    public var frames: Int
    public var destination: String?

    public init(id: String, packetID: UInt32, frames: Int, destination: String?) {
        self.id = id
        self.packetID = packetID
        self.frames = frames
        self.destination = destination
    }
}

/// A log line the machine asks its driver to write.
public struct MeshNodeLog: Sendable, Hashable {
    public enum Level: Sendable, Hashable {
        case debug, info, warning, error
    }

    public var level: Level
    public var message: String
    public var metadata: [String: String]

    public init(_ level: Level, _ message: String, _ metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }
}
