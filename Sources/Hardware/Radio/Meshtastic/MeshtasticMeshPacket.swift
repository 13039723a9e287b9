/// Meshtastic's `MeshPacket` (mesh.proto), the fields this driver reads and writes.
public struct MeshtasticMeshPacket: Sendable, Equatable {
    /// The broadcast address (`to` of a packet for every node).
    public static let broadcast: UInt32 = 0xFFFF_FFFF

    public var from: UInt32
    public var to: UInt32
    /// The channel index (0–7) the packet rides.
    public var channel: UInt32
    /// `decoded` (field 4): set when the node could decrypt the packet.
    public var decoded: MeshtasticData?
    /// `encrypted` (field 5): the raw bytes of a packet the node could not decrypt.
    public var encrypted: [UInt8]?
    public var id: UInt32
    /// `rx_time`, seconds since 1970 (fixed32).
    public var rxTime: UInt32
    public var rxSNR: Float
    public var hopLimit: UInt32
    public var wantAck: Bool
    /// `priority` (enum `MeshPacket.Priority`: 0 unset, 64 default, 70 reliable, 120 ack, 127 max …).
    public var priority: UInt32
    /// `rx_rssi` (int32, dBm; negative values are ten-byte varints on the wire).
    public var rxRSSI: Int32
    public var hopStart: UInt32

    public init(
        from: UInt32 = 0, to: UInt32 = MeshtasticMeshPacket.broadcast, channel: UInt32 = 0, decoded: MeshtasticData? = nil,
        encrypted: [UInt8]? = nil, id: UInt32 = 0, rxTime: UInt32 = 0, rxSNR: Float = 0, hopLimit: UInt32 = 0,
        wantAck: Bool = false, priority: UInt32 = 0, rxRSSI: Int32 = 0, hopStart: UInt32 = 0
    ) {
        self.from = from
        self.to = to
        self.channel = channel
        self.decoded = decoded
        self.encrypted = encrypted
        self.id = id
        self.rxTime = rxTime
        self.rxSNR = rxSNR
        self.hopLimit = hopLimit
        self.wantAck = wantAck
        self.priority = priority
        self.rxRSSI = rxRSSI
        self.hopStart = hopStart
    }

    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.fixed32(1, from)
        writer.fixed32(2, to)
        writer.uint(3, UInt64(channel))
        if let decoded { writer.lengthDelimited(4, decoded.encoded(), always: true) }
        if let encrypted, decoded == nil { writer.lengthDelimited(5, encrypted, always: true) }
        writer.fixed32(6, id)
        writer.fixed32(7, rxTime)
        writer.float(8, rxSNR)
        writer.uint(9, UInt64(hopLimit))
        writer.bool(10, wantAck)
        writer.uint(11, UInt64(priority))
        writer.int(12, Int64(rxRSSI))
        writer.uint(15, UInt64(hopStart))
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(ProtobufDecodingError) {
        self.init()
        to = 0
        var reader = ProtobufReader(bytes, message: "MeshPacket")
        while let field = try reader.next() {
            switch field.number {
            case 1: from = field.fixed32 ?? from
            case 2: to = field.fixed32 ?? to
            case 3: channel = field.uint32 ?? channel
            case 4:
                if let raw = field.bytes {
                    decoded = try MeshtasticData(decoding: raw)
                    encrypted = nil
                }
            case 5:
                if let raw = field.bytes {
                    encrypted = raw
                    decoded = nil
                }
            case 6: id = field.fixed32 ?? id
            case 7: rxTime = field.fixed32 ?? rxTime
            case 8: rxSNR = field.float ?? rxSNR
            case 9: hopLimit = field.uint32 ?? hopLimit
            case 10: wantAck = field.bool ?? wantAck
            case 11: priority = field.uint32 ?? priority
            case 12: rxRSSI = field.int32 ?? rxRSSI
            case 15: hopStart = field.uint32 ?? hopStart
            default: continue
            }
        }
    }
}
