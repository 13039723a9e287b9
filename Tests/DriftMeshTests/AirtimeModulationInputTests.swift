import DriftMesh
import Testing

@Suite("Checked modulation input (driftd mesh airtime)")
struct AirtimeModulationInputTests {
    @Test("SF11 / 250 kHz / 4/5 / 16 symbols is LongFast; 50 bytes take 641.024 ms")
    func longFast() throws {
        let m = try LoRaModulation.checked(spreadingFactor: 11, bandwidthKHz: 250, codingRate: 5, preambleSymbols: 16)
        #expect(m == .longFast)
        #expect(abs(LoRaAirtime.seconds(payloadBytes: 50, modulation: m) * 1000 - 641.024) < 0.001)
    }

    static let spellings: [(Double, Double)] = [
        (7.8, 7812.5), (10.4, 125_000.0 / 12), (15.6, 15_625.0), (20.8, 125_000.0 / 6), (31.25, 31_250.0),
        (41.7, 125_000.0 / 3), (62.5, 62_500.0), (125.0, 125_000.0), (500.0, 500_000.0),
    ]

    @Test("Rounded bandwidth spellings map to the exact SX126x values", arguments: spellings)
    func bandwidths(kHz: Double, hz: Double) throws {
        let m = try LoRaModulation.checked(spreadingFactor: 9, bandwidthKHz: kHz, codingRate: 5)
        #expect(abs(m.bandwidthHz - hz) < 1e-6)
    }

    @Test("Header, CRC and LDRO switches reach the modulation")
    func switches() throws {
        let m = try LoRaModulation.checked(
            spreadingFactor: 11, bandwidthKHz: 250, codingRate: 8, explicitHeader: false, crc: false, lowDataRate: .on)
        #expect(!m.explicitHeader && !m.crc && m.usesLowDataRateOptimize && m.codingRateOffset == 4)
        let off = try LoRaModulation.checked(spreadingFactor: 12, bandwidthKHz: 125, codingRate: 5, lowDataRate: .off)
        #expect(!off.usesLowDataRateOptimize)
        #expect(LoRaModulation.LowDataRateSetting(rawValue: "maybe") == nil)
    }

    static let invalidInputs: [(Int, Double, Int, Int, String)] = [
        (13, 250.0, 5, 16, "spreading factor"), (4, 250.0, 5, 16, "spreading factor"),
        (11, 300.0, 5, 16, "bandwidth"), (11, 7.0, 5, 16, "bandwidth"), (11, .nan, 5, 16, "bandwidth"),
        (11, 250.0, 4, 16, "coding rate"), (11, 250.0, 9, 16, "coding rate"),
        (11, 250.0, 5, 0, "preamble"), (11, 250.0, 5, 70_000, "preamble"),
    ]

    @Test("Out-of-range figures are typed errors naming the figure", arguments: invalidInputs)
    func invalid(sf: Int, bw: Double, cr: Int, preamble: Int, parameter: String) {
        do throws(LoRaModulationError) {
            _ = try LoRaModulation.checked(spreadingFactor: sf, bandwidthKHz: bw, codingRate: cr, preambleSymbols: preamble)
            Issue.record("accepted SF\(sf) \(bw) kHz 4/\(cr) \(preamble)")
        } catch {
            #expect(error.parameter == parameter)
        }
    }

    @Test("Payload length is 0–255 bytes")
    func payload() throws {
        try LoRaModulation.checkPayload(bytes: 0)
        try LoRaModulation.checkPayload(bytes: 255)
        #expect(throws: LoRaModulationError.self) { try LoRaModulation.checkPayload(bytes: 256) }
        #expect(throws: LoRaModulationError.self) { try LoRaModulation.checkPayload(bytes: -1) }
    }
}
