/// One sub-band of a region with its transmit rule (internal table behind ``DutyCyclePolicy``).
///
/// Sources (see docs/airtime.md for the reasoning):
/// - EU868: ETSI EN 300 220-2 V3.2.1 Annex B / ERC Rec 70-03 Annex 1, non-specific SRDs.
///   The alarm-only pieces 868.6–868.7, 869.2–869.4 and 869.65–869.7 MHz are not listed, so a
///   channel there is refused.
/// - EU433: ERC Rec 70-03 Annex 1, 433.05–434.79 MHz, 10 mW, ≤ 10 %.
/// - US915: FCC 47 CFR 15.247(a)(1)(i), 400 ms occupancy per hop; LoRaWAN US915 applies it as a
///   400 ms per-transmission dwell limit. No duty cycle.
/// - AU915: LoRaWAN RP002 AU915 (UplinkDwellTime = 1 by default, 400 ms). No duty cycle.
/// - AS923: 1 % per hour, the conservative reading used by LoRaWAN stacks where local rules vary.
/// - KR920: no duty cycle, listen-before-talk required (LoRaWAN KR920 / Korean rules).
/// - IN865: no duty cycle (India, 865–867 MHz licence-exempt).
/// - RU864: 1 % per hour over the band (LoRaWAN RU864 default channels, conservative single figure).
/// - CN470: no duty cycle.
struct RegionSubBand: Sendable {
    var rangeMHz: ClosedRange<Double>
    var dutyCycle: Double?
    var maxDwell: Duration?
    var listenBeforeTalk: Bool
    var rule: String

    init(_ range: ClosedRange<Double>, _ dutyCycle: Double?, maxDwell: Duration? = nil, lbt: Bool = false, _ rule: String) {
        rangeMHz = range
        self.dutyCycle = dutyCycle
        self.maxDwell = maxDwell
        listenBeforeTalk = lbt
        self.rule = rule
    }

    static func table(for region: AirtimeRegion) -> [RegionSubBand] {
        switch region {
        case .eu868:
            [
                RegionSubBand(869.40...869.65, 0.10, "ETSI EN 300 220-2, 869.40–869.65 MHz, ≤ 10 % duty cycle, 500 mW"),
                RegionSubBand(868.00...868.60, 0.01, "ETSI EN 300 220-2, 868.0–868.6 MHz, ≤ 1 % duty cycle, 25 mW"),
                RegionSubBand(868.70...869.20, 0.001, "ETSI EN 300 220-2, 868.7–869.2 MHz, ≤ 0.1 % duty cycle, 25 mW"),
                RegionSubBand(869.70...870.00, 0.01, "ETSI EN 300 220-2, 869.7–870.0 MHz, ≤ 1 % duty cycle, 25 mW"),
                RegionSubBand(865.00...868.00, 0.01, "ETSI EN 300 220-2, 865–868 MHz, ≤ 1 % duty cycle, 25 mW"),
                RegionSubBand(863.00...865.00, 0.001, "ETSI EN 300 220-2, 863–865 MHz, ≤ 0.1 % duty cycle, 25 mW"),
            ]
        case .eu433:
            [RegionSubBand(433.05...434.79, 0.10, "ERC Rec 70-03 Annex 1, 433.05–434.79 MHz, ≤ 10 % duty cycle, 10 mW")]
        case .us915:
            [RegionSubBand(902.0...928.0, nil, maxDwell: .milliseconds(400),
                           "FCC 47 CFR 15.247, 902–928 MHz, no duty cycle, 400 ms dwell")]
        case .au915:
            [RegionSubBand(915.0...928.0, nil, maxDwell: .milliseconds(400),
                           "AU915 (LoRaWAN RP002 dwell), 915–928 MHz, no duty cycle, 400 ms dwell")]
        case .as923:
            [RegionSubBand(915.0...928.0, 0.01, "AS923, 915–928 MHz, ≤ 1 % duty cycle (conservative reading)")]
        case .kr920:
            [RegionSubBand(920.9...923.3, nil, lbt: true, "KR920, 920.9–923.3 MHz, listen-before-talk, no duty cycle")]
        case .in865:
            [RegionSubBand(865.0...867.0, nil, "IN865, 865–867 MHz, no duty cycle")]
        case .ru864:
            [RegionSubBand(864.0...870.0, 0.01, "RU864, 864–870 MHz, ≤ 1 % duty cycle (conservative reading)")]
        case .cn470:
            [RegionSubBand(470.0...510.0, nil, "CN470, 470–510 MHz, no duty cycle")]
        }
    }
}
