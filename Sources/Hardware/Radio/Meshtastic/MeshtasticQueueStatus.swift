/// Meshtastic's `QueueStatus` (mesh.proto): room in the node's transmit queue, sent after
/// each packet the node takes from us.
public struct MeshtasticQueueStatus: Sendable, Equatable {
    /// `res`: the result of queueing the last packet (0 = ok, an error code otherwise).
    public var res: Int32
    /// `free`: how many more packets the queue takes now.
    public var free: UInt32
    /// `maxlen`: the queue's size.
    public var maxlen: UInt32
    /// `mesh_packet_id`: the id of the packet this status answers (0 when none).
    public var meshPacketID: UInt32

    public init(res: Int32 = 0, free: UInt32, maxlen: UInt32, meshPacketID: UInt32 = 0) {
        self.res = res
        self.free = free
        self.maxlen = maxlen
        self.meshPacketID = meshPacketID
    }

    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.int(1, Int64(res))
        writer.uint(2, UInt64(free))
        writer.uint(3, UInt64(maxlen))
        writer.uint(4, UInt64(meshPacketID))
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(ProtobufDecodingError) {
        self.init(free: 0, maxlen: 0)
        var reader = ProtobufReader(bytes, message: "QueueStatus")
        while let field = try reader.next() {
            switch field.number {
            case 1: res = field.int32 ?? res
            case 2: free = field.uint32 ?? free
            case 3: maxlen = field.uint32 ?? maxlen
            case 4: meshPacketID = field.uint32 ?? meshPacketID
            default: continue
            }
        }
    }
}
