/// The Meshtastic serial API's stream framing: `0x94 0xC3`, a two-byte big-endian
/// length (at most 512), then that many bytes of protobuf (`ToRadio` one way,
/// `FromRadio` the other). Anything outside frames is the node's debug log text.
public enum MeshtasticFraming {
    public static let start1: UInt8 = 0x94
    public static let start2: UInt8 = 0xC3
    /// `MAX_TO_FROM_RADIO_SIZE`: the largest protobuf a frame carries.
    public static let maximumPayloadBytes = 512

    /// What a client sends before its first frame so a sleeping node's UART wakes up and
    /// any half-received frame on the node's side is flushed: 32 × `0xC3` (as the
    /// `meshtastic` Python client does), followed by a short pause.
    public static let wakeSequence = [UInt8](repeating: start2, count: 32)

    public struct PayloadTooLarge: Error, Sendable, Equatable, CustomStringConvertible {
        public var count: Int
        public init(count: Int) { self.count = count }
        public var description: String { "a Meshtastic serial frame carries at most \(MeshtasticFraming.maximumPayloadBytes) bytes, this one \(count)" }
    }

    /// One frame around `payload`.
    public static func frame(_ payload: [UInt8]) throws(PayloadTooLarge) -> [UInt8] {
        guard payload.count <= maximumPayloadBytes else { throw PayloadTooLarge(count: payload.count) }
        return [start1, start2, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
    }
}
