import DriftMesh

extension DriftConfiguration {
    /// `[radio]`: the LoRa radio.
    public struct Radio: Sendable, Equatable {
        public var kind: RadioKind
        /// Device path, `auto` (find it), or `sim`.
        public var port: String
        public var baud: Int
        public var region: RadioRegion
        /// Centre frequency; defaults to the region's default channel.
        public var frequencyMHz: Double
        public var txPowerDBm: Int
        public var spreadingFactor: Int
        public var bandwidthKHz: Int
        /// The 4/x coding rate's denominator (5–8).
        public var codingRate: Int

        init(reading r: SectionReader) {
            kind = r.choice("kind")
            port = r.string("port", default: "auto") { ConfigChecks.devicePath($0, keywords: ["auto", "sim"]) }
            baud = r.int("baud", default: 9600) { ConfigChecks.baud($0, allowAuto: false) }
            let needsRegion = r.decoder.hasNoIssue("radio.kind") && kind != .none
            region = r.choice(
                "region", default: needsRegion ? nil : .eu868,
                requirement: needsRegion ? "the radio's legal region" : nil)
            let frequency = r.optionalDouble("frequency_mhz")
            frequencyMHz = frequency ?? region.defaultFrequencyMHz
            txPowerDBm = r.int("tx_power_dbm", default: 14, min: -9, max: 22)
            spreadingFactor = r.int("spreading_factor", default: 11, min: 7, max: 12)
            bandwidthKHz = r.int("bandwidth_khz", default: 250) { value in
                [125, 250, 500].contains(value) ? nil : ValueProblem("must be 125, 250 or 500, found \(value)")
            }
            codingRate = r.int("coding_rate", default: 5, min: 5, max: 8)
        }
    }

    /// `[e22]`: mode lines of an E22 module (used when `radio.kind = "e22"`).
    public struct E22: Sendable, Equatable {
        /// Line names of the M0/M1 mode pins.
        public var m0: String
        public var m1: String
        /// Line name of the AUX (busy) pin; `""` = not wired.
        public var aux: String

        init(reading r: SectionReader) {
            m0 = r.string("m0", default: "", check: ConfigChecks.lineName)
            m1 = r.string("m1", default: "", check: ConfigChecks.lineName)
            aux = r.string("aux", default: "", check: ConfigChecks.lineName)
        }
    }
}
