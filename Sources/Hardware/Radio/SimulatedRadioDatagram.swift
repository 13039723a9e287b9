/// One simulated transmission on the loopback medium: the sender's position and channel, when
/// the frame was on the air, then the frame.
///
///     "DRS2" | lat f64 BE | lon f64 BE | tx dBm i8 | freq kHz u32 BE | SF u8 | BW kHz u16 BE
///            | air end u64 BE (ns, CLOCK_MONOTONIC) | airtime u32 BE (µs) | frame…
///
/// The air times are on the machine's monotonic clock (``MonotonicTime``), which every process
/// on it shares: a receiver judges half duplex by when the frame was on the air, not by when its
/// receive loop got to the datagram (a loaded machine read datagrams late, and frames that had
/// ended before the receiver began to transmit were dropped as heard while transmitting).
/// A transmission also sends, as it starts, a *carrier* datagram: the same header under the magic
/// "DRC2" and no frame. It is what a radio's channel activity detection hears while the frame is
/// still on the air, so a receiver in range can listen before it talks (``MeshRadio/channelBusyUntil``).
/// Anything else on the port (a stray datagram, a short one) is rejected and counted by the radio.
public struct SimulatedRadioDatagram: Sendable, Equatable {
    public static let magic: [UInt8] = Array("DRS2".utf8)
    public static let carrierMagic: [UInt8] = Array("DRC2".utf8)
    public static let headerBytes = 4 + 8 + 8 + 1 + 4 + 1 + 2 + 8 + 4

    public var sender: SimulatedRadioTransmitter
    public var frame: [UInt8]
    /// A carrier datagram: a transmission has begun and lasts until ``airEnd``; no frame.
    public var isCarrier = false
    /// When the frame left the air, on the sender's `CLOCK_MONOTONIC` (``MonotonicTime``).
    public var airEnd: Duration
    /// Its time on air (whole microseconds on the wire).
    public var airtime: Duration

    public init(sender: SimulatedRadioTransmitter, frame: [UInt8], airEnd: Duration = .zero, airtime: Duration = .zero) {
        self.sender = sender
        self.frame = frame
        self.airEnd = airEnd
        self.airtime = airtime
    }

    /// The frame's time on the air.
    public var onAir: ClosedRange<Duration> {
        (airEnd - airtime)...airEnd
    }

    /// The carrier datagram that announces this transmission as it starts.
    public var carrier: SimulatedRadioDatagram {
        var carrier = SimulatedRadioDatagram(sender: sender, frame: [], airEnd: airEnd, airtime: airtime)
        carrier.isCarrier = true
        return carrier
    }

    public func encoded() -> [UInt8] {
        var out = isCarrier ? Self.carrierMagic : Self.magic
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
        let end = airEnd.components
        put(UInt64(clamping: max(0, end.seconds * 1_000_000_000 + end.attoseconds / 1_000_000_000)))
        let air = airtime.components
        put(UInt32(clamping: max(0, air.seconds * 1_000_000 + air.attoseconds / 1_000_000_000_000)))
        out.append(contentsOf: frame)
        return out
    }

    /// Decodes a datagram; `nil` when it is not one of ours.
    public init?(decoding bytes: [UInt8]) {
        guard bytes.count >= Self.headerBytes else { return nil }
        let magic = Array(bytes[0..<4])
        guard magic == Self.magic || (magic == Self.carrierMagic && bytes.count == Self.headerBytes) else { return nil }
        isCarrier = magic == Self.carrierMagic
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
        let airEnd = read(UInt64.self, at: 28)
        guard airEnd <= UInt64(Int64.max) else { return nil }
        self.airEnd = .nanoseconds(Int64(airEnd))
        airtime = .microseconds(Int64(read(UInt32.self, at: 36)))
        sender = SimulatedRadioTransmitter(
            latitude: latitude, longitude: longitude, txPowerDBm: power,
            channel: .init(frequencyMHz: frequency, spreadingFactor: spreadingFactor, bandwidthHz: bandwidth))
        frame = Array(bytes[Self.headerBytes...])
    }
}
