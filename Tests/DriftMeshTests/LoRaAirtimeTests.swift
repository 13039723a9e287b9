import DriftMesh
import Testing

@Suite("LoRa time on air (Semtech formula)")
struct LoRaAirtimeTests {
    private func milliseconds(_ bytes: Int, _ m: LoRaModulation) -> Double {
        LoRaAirtime.seconds(payloadBytes: bytes, modulation: m) * 1000
    }

    @Test("LongFast, 43-byte payload, 16-symbol preamble: 559.1 ms (the issue's reference)")
    func longFast43() {
        #expect(abs(milliseconds(43, .longFast) - 559.104) < 0.001)
    }

    @Test("SF11/BW250/CR4-5, 50 bytes: 641.0 ms")
    func longFast50() {
        // Npayload = 8 + ceil((400 − 44 + 28 + 16) / 44) · 5 = 58; (20.25 + 58) · 8.192 ms
        #expect(abs(milliseconds(50, .longFast) - 641.024) < 0.001)
    }

    @Test("Published LoRaWAN figures: SF7/BW125, 8-symbol preamble, 20 bytes → 56.6 ms; SF12 → 1318.9 ms (LDRO)")
    func loraWANTable() {
        let sf7 = LoRaModulation(spreadingFactor: 7, bandwidthHz: 125_000, preambleSymbols: 8)
        #expect(abs(milliseconds(20, sf7) - 56.576) < 0.001)
        let sf12 = LoRaModulation(spreadingFactor: 12, bandwidthHz: 125_000, preambleSymbols: 8)
        #expect(sf12.usesLowDataRateOptimize)
        #expect(abs(milliseconds(20, sf12) - 1318.912) < 0.001)
    }

    @Test("Low-data-rate optimisation switches on above 16 ms symbols only")
    func ldroThreshold() {
        #expect(!LoRaModulation(spreadingFactor: 11, bandwidthHz: 250_000).usesLowDataRateOptimize)
        #expect(LoRaModulation(spreadingFactor: 11, bandwidthHz: 125_000).usesLowDataRateOptimize)
        #expect(LoRaModulation(spreadingFactor: 12, bandwidthHz: 250_000).usesLowDataRateOptimize)
    }

    @Test("Time on air grows with the payload and never shrinks")
    func monotonic() {
        var last = 0.0
        for bytes in 0...255 {
            let t = milliseconds(bytes, .longFast)
            #expect(t >= last)
            last = t
        }
    }

    @Test("A contention slot is Meshtastic's: 77.2 ms at LongFast, 9.8 ms at SF7/500 kHz")
    func slot() {
        #expect(LoRaModulation.longFast.slot == .microseconds(77_232))
        #expect(LoRaModulation(spreadingFactor: 7, bandwidthHz: 500_000).slot == .microseconds(9_776))
    }
}
