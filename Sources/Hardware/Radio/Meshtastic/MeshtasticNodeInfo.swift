/// Meshtastic's `NodeInfo` (mesh.proto): a node in the attached node's database, with
/// the names from its `User`.
public struct MeshtasticNodeInfo: Sendable, Equatable {
    /// `num`: the node number.
    public var num: UInt32
    /// `user.id` (e.g. `!1a2b3c4d`), `user.long_name`, `user.short_name`.
    public var userID: String
    public var longName: String
    public var shortName: String

    public init(num: UInt32, userID: String = "", longName: String = "", shortName: String = "") {
        self.num = num
        self.userID = userID
        self.longName = longName
        self.shortName = shortName
    }

    public func encoded() -> [UInt8] {
        var user = ProtobufWriter()
        user.string(1, userID)
        user.string(2, longName)
        user.string(3, shortName)
        var writer = ProtobufWriter()
        writer.uint(1, UInt64(num))
        writer.lengthDelimited(2, user.bytes)
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(ProtobufDecodingError) {
        self.init(num: 0)
        var reader = ProtobufReader(bytes, message: "NodeInfo")
        while let field = try reader.next() {
            switch field.number {
            case 1: num = field.uint32 ?? num
            case 2:
                guard let raw = field.bytes else { continue }
                var user = ProtobufReader(raw, message: "User")
                while let inner = try user.next() {
                    switch inner.number {
                    case 1: userID = inner.string ?? userID
                    case 2: longName = inner.string ?? longName
                    case 3: shortName = inner.string ?? shortName
                    default: continue
                    }
                }
            default: continue
            }
        }
    }
}
