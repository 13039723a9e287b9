/// Meshtastic's `ToRadio` (mesh.proto): what a client sends to its node (a oneof).
public enum MeshtasticToRadio: Sendable, Equatable {
    /// `packet` (1): a packet to send on the mesh.
    case packet(MeshtasticMeshPacket)
    /// `want_config_id` (3): start the handshake; the node answers with its state and
    /// ends with `config_complete_id` equal to this nonce.
    case wantConfigID(UInt32)
    /// `disconnect` (4): the client is going away.
    case disconnect
    /// `heartbeat` (7): keeps the serial API session alive (`Heartbeat.nonce`).
    case heartbeat(nonce: UInt32)
    /// A member this driver does not model (field number), seen when decoding.
    case other(Int)

    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        switch self {
        case .packet(let packet): writer.lengthDelimited(1, packet.encoded(), always: true)
        case .wantConfigID(let nonce): writer.uint(3, UInt64(nonce), always: true)
        case .disconnect: writer.uint(4, 1, always: true)
        case .heartbeat(let nonce):
            var inner = ProtobufWriter()
            inner.uint(1, UInt64(nonce))
            writer.lengthDelimited(7, inner.bytes, always: true)
        case .other: break
        }
        return writer.bytes
    }

    /// Decodes a `ToRadio` (the node emulator's side); `nil` when no member is set.
    public static func decode(_ bytes: [UInt8]) throws(ProtobufDecodingError) -> MeshtasticToRadio? {
        var result: MeshtasticToRadio?
        var reader = ProtobufReader(bytes, message: "ToRadio")
        while let field = try reader.next() {
            switch field.number {
            case 1: if let raw = field.bytes { result = .packet(try MeshtasticMeshPacket(decoding: raw)) }
            case 3: if let nonce = field.uint32 { result = .wantConfigID(nonce) }
            case 4: result = .disconnect
            case 7:
                guard let raw = field.bytes else { continue }
                var nonce: UInt32 = 0
                for inner in try ProtobufReader.fields(raw, message: "Heartbeat") where inner.number == 1 {
                    nonce = inner.uint32 ?? nonce
                }
                result = .heartbeat(nonce: nonce)
            default: result = .other(field.number)
            }
        }
        return result
    }
}
