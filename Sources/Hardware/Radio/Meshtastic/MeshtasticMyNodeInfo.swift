/// Meshtastic's `MyNodeInfo` (mesh.proto): who the attached node is.
public struct MeshtasticMyNodeInfo: Sendable, Equatable {
    /// `my_node_num`: the node's number, shown by Meshtastic as `!xxxxxxxx`.
    public var myNodeNum: UInt32
    /// `reboot_count` (field 8).
    public var rebootCount: UInt32

    public init(myNodeNum: UInt32, rebootCount: UInt32 = 0) {
        self.myNodeNum = myNodeNum
        self.rebootCount = rebootCount
    }

    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.uint(1, UInt64(myNodeNum))
        writer.uint(8, UInt64(rebootCount))
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(ProtobufDecodingError) {
        self.init(myNodeNum: 0)
        var reader = ProtobufReader(bytes, message: "MyNodeInfo")
        while let field = try reader.next() {
            switch field.number {
            case 1: myNodeNum = field.uint32 ?? myNodeNum
            case 8: rebootCount = field.uint32 ?? rebootCount
            default: continue
            }
        }
    }
}
