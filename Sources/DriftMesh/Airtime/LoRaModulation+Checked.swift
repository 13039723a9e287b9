extension LoRaModulation {
    /// The SX126x bandwidths in kHz (7.8 … 500); SX127x supports the same list.
    public static let bandwidthsKHz: [Double] = [
        125.0 / 16, 125.0 / 12, 125.0 / 8, 125.0 / 6, 31.25, 125.0 / 3, 62.5, 125, 250, 500,
    ]

    /// Low-data-rate optimisation as a user states it.
    public enum LowDataRateSetting: String, Sendable, CaseIterable {
        case on, off, auto

        var value: Bool? {
            switch self {
            case .on: true
            case .off: false
            case .auto: nil
            }
        }
    }

    /// A modulation from the figures a person types (`driftd mesh airtime`, configuration),
    /// each one checked.
    ///
    /// - Parameters:
    ///   - spreadingFactor: 5–12.
    ///   - bandwidthKHz: one of ``bandwidthsKHz``; rounded spellings such as 7.8, 10.4, 20.8,
    ///     41.7 are accepted (nearest within 0.06 kHz).
    ///   - codingRate: the 4/x denominator, 5–8.
    ///   - preambleSymbols: 1–65535.
    /// - Throws: ``LoRaModulationError`` naming the first bad figure.
    public static func checked(
        spreadingFactor: Int, bandwidthKHz: Double, codingRate: Int, preambleSymbols: Int = 16,
        explicitHeader: Bool = true, crc: Bool = true, lowDataRate: LowDataRateSetting = .auto
    ) throws(LoRaModulationError) -> LoRaModulation {
        guard (5...12).contains(spreadingFactor) else {
            throw LoRaModulationError(parameter: "spreading factor", value: "\(spreadingFactor)", expected: "5 to 12")
        }
        guard bandwidthKHz.isFinite,
              let bandwidth = bandwidthsKHz.min(by: { abs($0 - bandwidthKHz) < abs($1 - bandwidthKHz) }),
              abs(bandwidth - bandwidthKHz) <= 0.06
        else {
            throw LoRaModulationError(
                parameter: "bandwidth", value: "\(bandwidthKHz) kHz",
                expected: "one of 7.8, 10.4, 15.6, 20.8, 31.25, 41.7, 62.5, 125, 250, 500 kHz")
        }
        guard (5...8).contains(codingRate) else {
            throw LoRaModulationError(parameter: "coding rate", value: "4/\(codingRate)", expected: "4/5 to 4/8 (give 5 to 8)")
        }
        guard (1...65535).contains(preambleSymbols) else {
            throw LoRaModulationError(parameter: "preamble", value: "\(preambleSymbols) symbols", expected: "1 to 65535 symbols")
        }
        return LoRaModulation(
            spreadingFactor: spreadingFactor, bandwidthHz: bandwidth * 1000, codingRateOffset: codingRate - 4,
            preambleSymbols: preambleSymbols, explicitHeader: explicitHeader, crc: crc,
            lowDataRateOptimize: lowDataRate.value)
    }

    /// Checks a LoRa payload length (0–255 bytes, the radio's FIFO limit).
    public static func checkPayload(bytes: Int) throws(LoRaModulationError) {
        guard (0...255).contains(bytes) else {
            throw LoRaModulationError(parameter: "payload", value: "\(bytes) bytes", expected: "0 to 255 bytes")
        }
    }
}

/// A modulation figure out of range.
public struct LoRaModulationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which figure (`spreading factor`, `bandwidth`, …).
    public var parameter: String
    /// What was given.
    public var value: String
    /// What is accepted.
    public var expected: String
    public var description: String { "\(parameter) \(value) is invalid: expected \(expected)" }
}
