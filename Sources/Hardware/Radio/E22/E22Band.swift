/// The frequency range of an E22 part: channel `CH` (REG2) is `base + CH` MHz.
public enum E22Band: Sendable, Equatable, CaseIterable {
    /// E22-400T22S and kin: 410.125 + CH MHz, CH 0–83.
    case mhz400
    /// E22-900T22S, the Waveshare SX1262 868M/915M HAT: 850.125 + CH MHz, CH 0–80.
    case mhz900

    /// Frequency of channel 0, MHz.
    public var baseMHz: Double {
        switch self {
        case .mhz400: 410.125
        case .mhz900: 850.125
        }
    }

    /// The highest channel number.
    public var maximumChannel: Int {
        switch self {
        case .mhz400: 83
        case .mhz900: 80
        }
    }

    /// The band a frequency belongs to: below 600 MHz the 400 MHz parts, else the 900 MHz parts.
    public init(frequencyMHz: Double) {
        self = frequencyMHz < 600 ? .mhz400 : .mhz900
    }

    /// Centre frequency of `channel`, MHz.
    public func frequencyMHz(channel: Int) -> Double { baseMHz + Double(channel) }

    /// The channel for `frequencyMHz`, or `nil` unless it is exactly `base + CH` (within 1 kHz)
    /// with CH in range.
    public func channel(frequencyMHz: Double) -> Int? {
        guard frequencyMHz.isFinite else { return nil }
        let offset = frequencyMHz - baseMHz
        let channel = offset.rounded()
        guard abs(offset - channel) < 0.001, channel >= 0, channel <= Double(maximumChannel) else { return nil }
        return Int(channel)
    }

    /// The valid frequency closest to `frequencyMHz`.
    public func nearestFrequencyMHz(to frequencyMHz: Double) -> Double {
        guard frequencyMHz.isFinite else { return baseMHz }
        let channel = min(max((frequencyMHz - baseMHz).rounded(), 0), Double(maximumChannel))
        return baseMHz + channel
    }
}
