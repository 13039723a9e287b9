/// Meshtastic's `FromRadio` (mesh.proto): what the node sends its client. `id` plus a
/// oneof; members this driver does not use are kept as ``Variant/other(_:)``.
public struct MeshtasticFromRadio: Sendable, Equatable {
    public enum Variant: Sendable, Equatable {
        /// `packet` (2): a packet heard on the mesh (or one of ours, echoed).
        case packet(MeshtasticMeshPacket)
        /// `my_info` (3).
        case myInfo(MeshtasticMyNodeInfo)
        /// `node_info` (4): one entry of the node database.
        case nodeInfo(MeshtasticNodeInfo)
        /// `config` (5): one section of the node's config; `lora` is read, others are `nil`.
        case config(MeshtasticLoRaConfig?)
        /// `log_record` (6): a log line the node sends as a message (`LogRecord.message`).
        case logRecord(String)
        /// `config_complete_id` (7): the end of the handshake, echoing our nonce.
        case configCompleteID(UInt32)
        /// `rebooted` (8): the node restarted; the client must handshake again.
        case rebooted(Bool)
        /// `channel` (10).
        case channel(MeshtasticChannel)
        /// `queueStatus` (11).
        case queueStatus(MeshtasticQueueStatus)
        /// `metadata` (13).
        case metadata(MeshtasticDeviceMetadata)
        /// Another member (`moduleConfig` 9, `xmodemPacket` 12, `mqttClientProxyMessage` 14 …): its field number.
        case other(Int)
    }

    /// `id` (1): the node's sequence number for this message.
    public var id: UInt32
    /// `nil` when the message set no member.
    public var variant: Variant?

    public init(id: UInt32 = 0, _ variant: Variant?) {
        self.id = id
        self.variant = variant
    }

    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.uint(1, UInt64(id))
        switch variant {
        case .packet(let packet): writer.lengthDelimited(2, packet.encoded(), always: true)
        case .myInfo(let info): writer.lengthDelimited(3, info.encoded(), always: true)
        case .nodeInfo(let info): writer.lengthDelimited(4, info.encoded(), always: true)
        case .config(let lora):
            var config = ProtobufWriter()
            if let lora { config.lengthDelimited(6, lora.encoded(), always: true) }
            writer.lengthDelimited(5, config.bytes, always: true)
        case .logRecord(let message):
            var record = ProtobufWriter()
            record.string(1, message)
            writer.lengthDelimited(6, record.bytes, always: true)
        case .configCompleteID(let nonce): writer.uint(7, UInt64(nonce), always: true)
        case .rebooted(let value): writer.uint(8, value ? 1 : 0, always: true)
        case .channel(let channel): writer.lengthDelimited(10, channel.encoded(), always: true)
        case .queueStatus(let status): writer.lengthDelimited(11, status.encoded(), always: true)
        case .metadata(let metadata): writer.lengthDelimited(13, metadata.encoded(), always: true)
        case .other, nil: break
        }
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(ProtobufDecodingError) {
        self.init(nil)
        var reader = ProtobufReader(bytes, message: "FromRadio")
        while let field = try reader.next() {
            switch field.number {
            case 1: id = field.uint32 ?? id
            case 2: if let raw = field.bytes { variant = .packet(try MeshtasticMeshPacket(decoding: raw)) }
            case 3: if let raw = field.bytes { variant = .myInfo(try MeshtasticMyNodeInfo(decoding: raw)) }
            case 4: if let raw = field.bytes { variant = .nodeInfo(try MeshtasticNodeInfo(decoding: raw)) }
            case 5:
                guard let raw = field.bytes else { continue }
                var lora: MeshtasticLoRaConfig?
                for inner in try ProtobufReader.fields(raw, message: "Config") where inner.number == 6 {
                    if let loraBytes = inner.bytes { lora = try MeshtasticLoRaConfig(decoding: loraBytes) }
                }
                variant = .config(lora)
            case 6:
                guard let raw = field.bytes else { continue }
                var message = ""
                for inner in try ProtobufReader.fields(raw, message: "LogRecord") where inner.number == 1 {
                    message = inner.string ?? message
                }
                variant = .logRecord(message)
            case 7: if let nonce = field.uint32 { variant = .configCompleteID(nonce) }
            case 8: if let value = field.bool { variant = .rebooted(value) }
            case 10: if let raw = field.bytes { variant = .channel(try MeshtasticChannel(decoding: raw)) }
            case 11: if let raw = field.bytes { variant = .queueStatus(try MeshtasticQueueStatus(decoding: raw)) }
            case 13: if let raw = field.bytes { variant = .metadata(try MeshtasticDeviceMetadata(decoding: raw)) }
            default: variant = .other(field.number)
            }
        }
    }
}
