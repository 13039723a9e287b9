/// Meshtastic's `Config.LoRaConfig` (config.proto, `Config.lora` = field 6): the node's
/// modem settings and hop limit, for logs and selftest (we never change them).
public struct MeshtasticLoRaConfig: Sendable, Equatable {
    public var usePreset: Bool
    /// `modem_preset` (0 LONG_FAST, 1 LONG_SLOW, 3 MEDIUM_SLOW, 4 MEDIUM_FAST, 6 SHORT_FAST …).
    public var modemPreset: UInt32
    public var bandwidth: UInt32
    public var spreadFactor: UInt32
    public var codingRate: UInt32
    /// `region` (enum `RegionCode`: 1 US, 3 EU_868 …).
    public var region: UInt32
    public var hopLimit: UInt32
    public var txEnabled: Bool
    public var txPower: Int32

    public init(
        usePreset: Bool = true, modemPreset: UInt32 = 0, bandwidth: UInt32 = 0, spreadFactor: UInt32 = 0, codingRate: UInt32 = 0,
        region: UInt32 = 0, hopLimit: UInt32 = 3, txEnabled: Bool = true, txPower: Int32 = 0
    ) {
        self.usePreset = usePreset
        self.modemPreset = modemPreset
        self.bandwidth = bandwidth
        self.spreadFactor = spreadFactor
        self.codingRate = codingRate
        self.region = region
        self.hopLimit = hopLimit
        self.txEnabled = txEnabled
        self.txPower = txPower
    }

    /// The `LoRaConfig` message itself (without the `Config` wrapper).
    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.bool(1, usePreset)
        writer.uint(2, UInt64(modemPreset))
        writer.uint(3, UInt64(bandwidth))
        writer.uint(4, UInt64(spreadFactor))
        writer.uint(5, UInt64(codingRate))
        writer.uint(7, UInt64(region))
        writer.uint(8, UInt64(hopLimit))
        writer.bool(9, txEnabled)
        writer.int(10, Int64(txPower))
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(ProtobufDecodingError) {
        self.init(usePreset: false, hopLimit: 0, txEnabled: false)
        var reader = ProtobufReader(bytes, message: "LoRaConfig")
        while let field = try reader.next() {
            switch field.number {
            case 1: usePreset = field.bool ?? usePreset
            case 2: modemPreset = field.uint32 ?? modemPreset
            case 3: bandwidth = field.uint32 ?? bandwidth
            case 4: spreadFactor = field.uint32 ?? spreadFactor
            case 5: codingRate = field.uint32 ?? codingRate
            case 7: region = field.uint32 ?? region
            case 8: hopLimit = field.uint32 ?? hopLimit
            case 9: txEnabled = field.bool ?? txEnabled
            case 10: txPower = field.int32 ?? txPower
            default: continue
            }
        }
    }
}
