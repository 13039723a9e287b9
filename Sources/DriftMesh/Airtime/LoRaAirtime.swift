/// Time on air of one LoRa packet, from Semtech's formula (SX127x/SX126x datasheets,
/// AN1200.13):
///
///     Tsym      = 2^SF / BW
///     Tpreamble = (Npreamble + 4.25) · Tsym
///     Npayload  = 8 + max(ceil((8·PL − 4·SF + 28 + 16·CRC − 20·IH) / (4·(SF − 2·DE))) · (CR + 4), 0)
///     ToA       = Tpreamble + Npayload · Tsym
///
/// with PL the LoRa payload in bytes, IH = 1 for an implicit header, DE = 1 with
/// low-data-rate optimisation and CR = 1…4 for 4/5…4/8. SF5 and SF6 (SX126x only)
/// take 6.25 sync symbols instead of 4.25 and no "+ 28 − 4·SF" term adjustment beyond
/// the datasheet's.
public enum LoRaAirtime {
    /// Seconds on air for `payloadBytes` bytes of LoRa payload.
    public static func seconds(payloadBytes: Int, modulation m: LoRaModulation) -> Double {
        let sf = Double(m.spreadingFactor)
        let tsym = m.symbolSeconds
        let syncSymbols = m.spreadingFactor <= 6 ? 6.25 : 4.25
        let preamble = (Double(m.preambleSymbols) + syncSymbols) * tsym
        let de = m.usesLowDataRateOptimize ? 1.0 : 0.0
        let ih = m.explicitHeader ? 0.0 : 1.0
        let crc = m.crc ? 1.0 : 0.0
        let numerator: Double
        if m.spreadingFactor <= 6 {
            numerator = 8 * Double(payloadBytes) - 4 * sf + 16 * crc - 20 * ih
        } else {
            numerator = 8 * Double(payloadBytes) - 4 * sf + 28 + 16 * crc - 20 * ih
        }
        let denominator = 4 * (sf - 2 * de)
        let blocks = max((numerator / denominator).rounded(.up), 0)
        let payloadSymbols = 8 + blocks * Double(m.codingRateOffset + 4)
        return preamble + payloadSymbols * tsym
    }

    /// Time on air as a `Duration` (microsecond resolution).
    public static func duration(payloadBytes: Int, modulation: LoRaModulation) -> Duration {
        .microseconds(Int64((seconds(payloadBytes: payloadBytes, modulation: modulation) * 1_000_000).rounded()))
    }
}
