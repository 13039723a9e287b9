/// Meshtastic's `DeviceMetadata` (mesh.proto): the node's firmware and hardware.
public struct MeshtasticDeviceMetadata: Sendable, Equatable {
    /// `firmware_version`, e.g. `2.5.6.d55c08d`.
    public var firmwareVersion: String
    /// `device_state_version` (field 2).
    public var deviceStateVersion: UInt32
    /// `hw_model` (enum `HardwareModel`, field 9).
    public var hardwareModel: UInt32

    public init(firmwareVersion: String, deviceStateVersion: UInt32 = 0, hardwareModel: UInt32 = 0) {
        self.firmwareVersion = firmwareVersion
        self.deviceStateVersion = deviceStateVersion
        self.hardwareModel = hardwareModel
    }

    public func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.string(1, firmwareVersion)
        writer.uint(2, UInt64(deviceStateVersion))
        writer.uint(9, UInt64(hardwareModel))
        return writer.bytes
    }

    public init(decoding bytes: [UInt8]) throws(ProtobufDecodingError) {
        self.init(firmwareVersion: "")
        var reader = ProtobufReader(bytes, message: "DeviceMetadata")
        while let field = try reader.next() {
            switch field.number {
            case 1: firmwareVersion = field.string ?? firmwareVersion
            case 2: deviceStateVersion = field.uint32 ?? deviceStateVersion
            case 9: hardwareModel = field.uint32 ?? hardwareModel
            default: continue
            }
        }
    }
}
