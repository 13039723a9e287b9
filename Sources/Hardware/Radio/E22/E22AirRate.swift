/// The E22's air data rates (REG0 bits 2–0) and the LoRa modulation each one stands for.
///
/// Ebyte publishes only the rate names (0.3 … 62.5 kbps), not the SX1262's spreading factor
/// and bandwidth behind them. Drift Box assumes, for airtime and the simulated medium, the
/// narrowest bandwidth (125, 250, 500 kHz) at which SF5 reaches the named rate and, at that
/// bandwidth, the spreading factor with the largest nominal bit rate
/// (`SF · BW / 2^SF · 4/5`) not above it. The airtime is then never shorter than the named
/// rate implies. See docs/e22.md.
public enum E22AirRate: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case kbps0_3 = 0, kbps1_2 = 1, kbps2_4 = 2, kbps4_8 = 3, kbps9_6 = 4, kbps19_2 = 5, kbps38_4 = 6, kbps62_5 = 7

    /// The rate as Ebyte names it, kbit/s.
    public var kilobitsPerSecond: Double {
        switch self {
        case .kbps0_3: 0.3
        case .kbps1_2: 1.2
        case .kbps2_4: 2.4
        case .kbps4_8: 4.8
        case .kbps9_6: 9.6
        case .kbps19_2: 19.2
        case .kbps38_4: 38.4
        case .kbps62_5: 62.5
        }
    }

    /// The rate named in kbit/s (within 0.001), or `nil` if the module has no such rate.
    public init?(kilobitsPerSecond: Double) {
        guard let rate = Self.allCases.first(where: { abs($0.kilobitsPerSecond - kilobitsPerSecond) < 0.001 }) else { return nil }
        self = rate
    }

    /// The assumed spreading factor.
    public var spreadingFactor: Int {
        switch self {
        case .kbps0_3: 12
        case .kbps1_2: 10
        case .kbps2_4: 9
        case .kbps4_8: 8
        case .kbps9_6: 6
        case .kbps19_2: 6
        case .kbps38_4: 6
        case .kbps62_5: 5
        }
    }

    /// The assumed bandwidth, Hz.
    public var bandwidthHz: Int {
        switch self {
        case .kbps0_3, .kbps1_2, .kbps2_4, .kbps4_8, .kbps9_6: 125_000
        case .kbps19_2: 250_000
        case .kbps38_4, .kbps62_5: 500_000
        }
    }

    /// The assumed coding rate 4/x (x).
    public var codingRate: Int { 5 }

    /// Nominal LoRa bit rate of the assumed modulation, bit/s.
    public var nominalBitsPerSecond: Double {
        Double(spreadingFactor) * Double(bandwidthHz) / Double(1 << spreadingFactor) * 4 / Double(codingRate)
    }

    /// Time on air of one packet of `bytes` payload bytes with the assumed modulation
    /// (Semtech's formula; preamble 8 symbols — the E22's — explicit header, CRC on).
    public func timeOnAir(bytes: Int, preambleSymbols: Int = 8) -> Duration {
        let symbol = Double(1 << spreadingFactor) / Double(bandwidthHz)
        let lowDataRate = symbol > 0.016 ? 1.0 : 0.0
        let sf = Double(spreadingFactor)
        let numerator = 8 * Double(bytes) - 4 * sf + 28 + 16
        let symbols = 8 + max(((numerator / (4 * (sf - 2 * lowDataRate))).rounded(.up)) * Double(codingRate), 0)
        let seconds = (Double(preambleSymbols) + 4.25 + symbols) * symbol
        return .nanoseconds(Int64(seconds * 1e9))
    }

    public var description: String { "\(kilobitsPerSecond) kbps" }
}
