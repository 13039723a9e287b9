/// One simulated transmission on the loopback medium: the sender's position and channel,
/// then the frame.
///
///     "DRS1" | lat f64 BE | lon f64 BE | tx dBm i8 | freq kHz u32 BE | SF u8 | BW kHz u16 BE | frame…
///
/// Anything else on the port (a stray datagram, a short one) is rejected and counted by the radio.
public struct SimulatedRadioDatagram: Sendable, Equatable {
    public static let magic: [UInt8] = Array("DRS1".utf8)
    public static let headerBytes = 4 + 8 + 8 + 1 + 4 + 1 + 2

    public var sender: SimulatedRadioTransmitter
    public var frame: [UInt8]

    public init(sender: SimulatedRadioTransmitter, frame: [UInt8]) {
        self.sender = sender
        self.frame = frame
    }

    public func encoded() -> [UInt8] {
        var out = Self.magic
        out.reserveCapacity(Self.headerBytes + frame.count)
        func put<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
        }
        put(sender.latitude.bitPattern)
        put(sender.longitude.bitPattern)
        out.append(UInt8(bitPattern: Int8(clamping: sender.txPowerDBm)))
        put(UInt32((sender.channel.frequencyMHz * 1000).rounded()))
        out.append(UInt8(clamping: sender.channel.spreadingFactor))
        put(UInt16(clamping: sender.channel.bandwidthHz / 1000))
        out.append(contentsOf: frame)
        return out
    }

    /// Decodes a datagram; `nil` when it is not one of ours.
    public init?(decoding bytes: [UInt8]) {
        guard bytes.count >= Self.headerBytes, Array(bytes[0..<4]) == Self.magic else { return nil }
        func read<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
            var value: T = 0
            for index in 0..<MemoryLayout<T>.size { value = value << 8 | T(bytes[offset + index]) }
            return value
        }
        let latitude = Double(bitPattern: read(UInt64.self, at: 4))
        let longitude = Double(bitPattern: read(UInt64.self, at: 12))
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        let power = Int(Int8(bitPattern: bytes[20]))
        let frequency = Double(read(UInt32.self, at: 21)) / 1000
        let spreadingFactor = Int(bytes[25])
        let bandwidth = Int(read(UInt16.self, at: 26)) * 1000
        sender = SimulatedRadioTransmitter(
            latitude: latitude, longitude: longitude, txPowerDBm: power,
            channel: .init(frequencyMHz: frequency, spreadingFactor: spreadingFactor, bandwidthHz: bandwidth))
        frame = Array(bytes[Self.headerBytes...])
    }
}
