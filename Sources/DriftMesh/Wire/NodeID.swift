/// A box's address on the mesh: 32 bits, the first four bytes of the SHA-256 of the
/// box's public key (so a `hello` that carries the key proves the address).
///
/// Printed the Meshtastic way, `!1a2b3c4d`. `0xFFFFFFFF` is the broadcast address
/// and never a box.
public struct NodeID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Everyone: the destination of a broadcast.
    public static let broadcast = NodeID(0xFFFF_FFFF)

    /// The low byte, carried in frames as the last relayer's short id (as Meshtastic 2.6 does).
    public var shortID: UInt8 { UInt8(truncatingIfNeeded: rawValue) }

    public var description: String {
        let hex = String(rawValue, radix: 16)
        return "!" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Parses the printed form `!1a2b3c4d` (or the 8 hex digits alone); `nil` for anything
    /// else and for the broadcast address, which names no box.
    public init?(parsing text: String) {
        let hex = text.hasPrefix("!") ? String(text.dropFirst()) : text
        guard hex.count == 8, let value = UInt32(hex, radix: 16), value != NodeID.broadcast.rawValue else { return nil }
        self.init(value)
    }

    public static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }
}
