/// The LoRa modulation parameters that decide how long a packet is on the air.
///
/// Defaults are Meshtastic's LongFast preset: SF11, 250 kHz, coding rate 4/5,
/// 16-symbol preamble, explicit header, CRC on.
public struct LoRaModulation: Hashable, Sendable {
    /// Spreading factor, 5–12.
    public var spreadingFactor: Int
    /// Bandwidth in Hz (125 000, 250 000, 500 000, …).
    public var bandwidthHz: Double
    /// Coding rate 4/x as x − 4: 1 = 4/5 … 4 = 4/8.
    public var codingRateOffset: Int
    /// Preamble length in symbols (programmed value; 4.25 symbols of sync are added).
    public var preambleSymbols: Int
    /// Explicit header (true) or implicit (false).
    public var explicitHeader: Bool
    /// Payload CRC on.
    public var crc: Bool
    /// Low-data-rate optimisation; `nil` = on when a symbol lasts longer than 16 ms, as Semtech requires.
    public var lowDataRateOptimize: Bool?

    public init(
        spreadingFactor: Int = 11, bandwidthHz: Double = 250_000, codingRateOffset: Int = 1,
        preambleSymbols: Int = 16, explicitHeader: Bool = true, crc: Bool = true, lowDataRateOptimize: Bool? = nil
    ) {
        self.spreadingFactor = spreadingFactor
        self.bandwidthHz = bandwidthHz
        self.codingRateOffset = codingRateOffset
        self.preambleSymbols = preambleSymbols
        self.explicitHeader = explicitHeader
        self.crc = crc
        self.lowDataRateOptimize = lowDataRateOptimize
    }

    /// Meshtastic's default preset (LongFast).
    public static let longFast = LoRaModulation()

    /// One symbol, seconds: 2^SF / BW.
    public var symbolSeconds: Double { Double(1 << spreadingFactor) / bandwidthHz }

    /// Whether low-data-rate optimisation is in effect.
    public var usesLowDataRateOptimize: Bool { lowDataRateOptimize ?? (symbolSeconds > 0.016) }
}
