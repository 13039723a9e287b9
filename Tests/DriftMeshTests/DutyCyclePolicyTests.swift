import DriftMesh
import Testing

@Suite("Duty-cycle rules per region and sub-band")
struct DutyCyclePolicyTests {
    @Test("EU868 869.525 MHz / 250 kHz (Meshtastic's default channel) is the 10 % sub-band: 360 s per hour")
    func euTenPercent() throws {
        let policy = try DutyCyclePolicy.forChannel(region: .eu868, frequencyMHz: 869.525, bandwidthHz: 250_000)
        #expect(policy.dutyCycle == 0.10)
        #expect(policy.subBandMHz == 869.40...869.65)
        #expect(policy.airtimeLimit == .seconds(360))
        #expect(policy.window == .seconds(3600))
        #expect(policy.maxDwell == nil)
    }

    static let euChannels: [(Double, Double, Double)] = [
        (868.1, 125_000.0, 0.01), (868.3, 250_000.0, 0.01), (869.0, 125_000.0, 0.001),
        (869.85, 125_000.0, 0.01), (866.0, 250_000.0, 0.01), (864.0, 125_000.0, 0.001),
    ]

    @Test("EU868 sub-bands: 868.1 → 1 %, 869.0 → 0.1 %, 869.85 → 1 %, 866 → 1 %, 864 → 0.1 %", arguments: euChannels)
    func euSubBands(frequency: Double, bandwidth: Double, expected: Double) throws {
        let policy = try DutyCyclePolicy.forChannel(region: .eu868, frequencyMHz: frequency, bandwidthHz: bandwidth)
        #expect(policy.dutyCycle == expected)
    }

    @Test("1 % is 36 s per hour, 0.1 % is 3.6 s")
    func euLimits() throws {
        #expect(try DutyCyclePolicy.forChannel(region: .eu868, frequencyMHz: 868.1, bandwidthHz: 125_000).airtimeLimit == .seconds(36))
        #expect(try DutyCyclePolicy.forChannel(region: .eu868, frequencyMHz: 869.0, bandwidthHz: 125_000).airtimeLimit == .milliseconds(3600))
    }

    static let straddling: [(Double, Double)] = [
        (869.525, 500_000.0),  // 869.275–869.775 straddles three pieces
        (868.6, 125_000.0),    // 868.5375–868.6625 runs into the alarm band
        (869.3, 125_000.0),    // alarm/social-alarm piece, not for general devices
        (868.0, 125_000.0),    // straddles 865–868 and 868.0–868.6
        (870.0, 125_000.0),    // past the band's top
        (915.0, 125_000.0),    // not EU at all
    ]

    @Test("A channel whose edges leave its sub-band is refused", arguments: straddling)
    func euStraddling(frequency: Double, bandwidth: Double) {
        #expect(throws: DutyCycleError.self) {
            try DutyCyclePolicy.forChannel(region: .eu868, frequencyMHz: frequency, bandwidthHz: bandwidth)
        }
    }

    @Test("US915: no duty cycle, but a 400 ms dwell limit refuses a 50-byte LongFast packet (641 ms) and allows 22 bytes")
    func usDwell() throws {
        let policy = try DutyCyclePolicy.forChannel(region: .us915, frequencyMHz: 906.875, bandwidthHz: 250_000)
        #expect(policy.dutyCycle == nil)
        #expect(policy.airtimeLimit == nil)
        #expect(policy.maxDwell == .milliseconds(400))
        let long = LoRaAirtime.duration(payloadBytes: 50, modulation: .longFast)
        #expect(policy.refusal(airtime: long) == .exceedsDwell(airtime: long, limit: .milliseconds(400)))
        #expect(policy.refusal(airtime: LoRaAirtime.duration(payloadBytes: 22, modulation: .longFast)) == nil)
        #expect(policy.refusal(airtime: LoRaAirtime.duration(payloadBytes: 23, modulation: .longFast)) != nil)
    }

    @Test("Every region's default channel (as the configuration has them) gets a policy")
    func defaults() throws {
        let defaults: [(AirtimeRegion, Double)] = [
            (.eu868, 869.525), (.eu433, 433.875), (.us915, 906.875), (.au915, 919.875), (.as923, 923.2),
            (.kr920, 921.9), (.in865, 865.4625), (.ru864, 868.9), (.cn470, 470.3),
        ]
        #expect(defaults.count == AirtimeRegion.allCases.count)
        for (region, frequency) in defaults {
            let policy = try DutyCyclePolicy.forChannel(region: region, frequencyMHz: frequency, bandwidthHz: 125_000)
            #expect(policy.region == region)
        }
        #expect(try DutyCyclePolicy.forChannel(region: .kr920, frequencyMHz: 921.9, bandwidthHz: 125_000).listenBeforeTalk)
        #expect(try DutyCyclePolicy.forChannel(region: .as923, frequencyMHz: 923.2, bandwidthHz: 125_000).dutyCycle == 0.01)
        #expect(try DutyCyclePolicy.forChannel(region: .in865, frequencyMHz: 865.4625, bandwidthHz: 125_000).dutyCycle == nil)
    }

    @Test("Nonsense frequency or bandwidth is a typed error, not a crash")
    func nonsense() {
        for (f, b) in [(Double.nan, 125_000.0), (869.5, 0), (-1, 125_000), (869.5, .infinity)] {
            #expect(throws: DutyCycleError.self) { try DutyCyclePolicy.forChannel(region: .eu868, frequencyMHz: f, bandwidthHz: b) }
        }
    }
}
