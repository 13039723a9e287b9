/// Meshtastic's `Channel` (channel.proto): one of the node's eight channel slots, with
/// the name from its `ChannelSettings` (the key is not kept).
public struct MeshtasticChannel: Sendable, Equatable {
    /// `Channel.Role`.
    public enum Role: UInt32, Sendable, Equatable {
        case disabled = 0
        case primary = 1
        case secondary = 2
    }

    /// `index` (0–7).
    public var index: Int32
    /// `settings.name` (`""` = the preset's default name, e.g. LongFast).
    public var name: String
    /// The raw `role`; ``role`` maps it.
    public var rawRole: UInt32

    public var role: Role? { Role(rawValue: rawRole) }

    public init(index: Int32, name: String, role: Role) {
        self.index = index
        self.name = name
        self.rawRole = role.rawValue
    }

    public func encoded() -> [UInt8] {
        var settings = ProtobufWriter()
        settings.string(3, name)
        var writer = ProtobufWriter()
        writer.int(1, Int64(index))
        writer.lengthDelimited(2, settings.bytes, always: true)
        writer.uint(3, UInt64(rawRole))
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(ProtobufDecodingError) {
        self.init(index: 0, name: "", role: .disabled)
        var reader = ProtobufReader(bytes, message: "Channel")
        while let field = try reader.next() {
            switch field.number {
            case 1: index = field.int32 ?? index
            case 2:
                guard let raw = field.bytes else { continue }
                var settings = ProtobufReader(raw, message: "ChannelSettings")
                while let inner = try settings.next() {
                    if inner.number == 3 { name = inner.string ?? name }
                }
            case 3: rawRole = field.uint32 ?? rawRole
            default: continue
            }
        }
    }
}
