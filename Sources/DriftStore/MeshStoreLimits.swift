import Foundation

/// Bounds and retention of the ``MeshStore``, fixed when the store is created.
public struct MeshStoreLimits: Hashable, Sendable {
    /// Most frames held for store-and-forward (`mesh_packets` rows).
    public var maxHeldPackets: Int
    /// Most frame bytes held for store-and-forward.
    public var maxHeldBytes: Int
    /// Longest frame accepted (a LoRa payload is at most 255 bytes).
    public var maxFrameBytes: Int
    /// A seen-set entry is kept at least this long after the packet was first heard…
    public var seenMinimumRetention: TimeInterval
    /// …and until its frame expires, but never longer than this after first heard.
    public var seenMaximumRetention: TimeInterval
    /// Packet ids reserved on disk ahead of use, so a crash never reuses one.
    public var packetIDReserve: UInt32

    public init(
        maxHeldPackets: Int = 2_000, maxHeldBytes: Int = 512 * 1024, maxFrameBytes: Int = 255,
        seenMinimumRetention: TimeInterval = 24 * 3_600, seenMaximumRetention: TimeInterval = 30 * 86_400,
        packetIDReserve: UInt32 = 1_024
    ) {
        precondition(maxHeldPackets >= 1 && maxHeldBytes >= 1 && maxFrameBytes >= 1, "limits must be positive")
        precondition(seenMaximumRetention >= seenMinimumRetention, "maximum retention below the minimum")
        precondition(packetIDReserve >= 1, "reserve at least one id")
        self.maxHeldPackets = maxHeldPackets
        self.maxHeldBytes = maxHeldBytes
        self.maxFrameBytes = maxFrameBytes
        self.seenMinimumRetention = seenMinimumRetention
        self.seenMaximumRetention = seenMaximumRetention
        self.packetIDReserve = packetIDReserve
    }
}
