/// Meshtastic's `Data` message (mesh.proto): the decoded payload of a packet and its port.
public struct MeshtasticData: Sendable, Equatable {
    /// `portnum` (portnums.proto `PortNum`).
    public var portnum: UInt32
    public var payload: [UInt8]
    public var wantResponse: Bool
    /// `dest`, `source`, `request_id` (fixed32), used by Meshtastic's own apps.
    public var dest: UInt32
    public var source: UInt32
    public var requestID: UInt32

    public init(portnum: UInt32, payload: [UInt8], wantResponse: Bool = false, dest: UInt32 = 0, source: UInt32 = 0, requestID: UInt32 = 0) {
        self.portnum = portnum
        self.payload = payload
        self.wantResponse = wantResponse
        self.dest = dest
        self.source = source
        self.requestID = requestID
    }

    /// Port numbers this driver uses (portnums.proto).
    public enum Port {
        /// `TEXT_MESSAGE_APP`: UTF-8 text every Meshtastic app shows.
        public static let textMessage: UInt32 = 1
        /// `PRIVATE_APP`: "for private apps that are not yet assigned a number"; our mesh frames.
        public static let privateApp: UInt32 = 256
    }

    /// `Constants.DATA_PAYLOAD_LEN` (mesh.proto): the most payload bytes a `Data` carries.
    public static let maximumPayloadBytes = 233

    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.uint(1, UInt64(portnum))
        writer.lengthDelimited(2, payload)
        writer.bool(3, wantResponse)
        writer.fixed32(4, dest)
        writer.fixed32(5, source)
        writer.fixed32(6, requestID)
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(ProtobufDecodingError) {
        self.init(portnum: 0, payload: [])
        var reader = ProtobufReader(bytes, message: "Data")
        while let field = try reader.next() {
            switch field.number {
            case 1: portnum = field.uint32 ?? portnum
            case 2: payload = field.bytes ?? payload
            case 3: wantResponse = field.bool ?? wantResponse
            case 4: dest = field.fixed32 ?? dest
            case 5: source = field.fixed32 ?? source
            case 6: requestID = field.fixed32 ?? requestID
            default: continue
            }
        }
    }
}
