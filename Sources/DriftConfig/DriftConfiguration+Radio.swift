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

    /// `[e22]`: an E22 module (used when `radio.kind = "e22"`): mode lines and the registers
    /// the driver programs at start (channel and TX power come from `[radio]`).
    public struct E22: Sendable, Equatable {
        /// The module's air data rates, kbit/s (REG0 bits 2–0).
        public static let airRatesKbps: [Double] = [0.3, 1.2, 2.4, 4.8, 9.6, 19.2, 38.4, 62.5]
        /// The module's sub-packet sizes, bytes (REG1 bits 7–6).
        public static let subPacketSizes = [240, 128, 64, 32]

        /// Line names of the M0/M1 mode pins.
        public var m0: String
        public var m1: String
        /// Line name of the AUX (busy) pin; `""` = not wired.
        public var aux: String
        /// Module address (ADDH/ADDL), 0–65535.
        public var address: Int
        /// Network id (NETID), 0–255.
        public var netID: Int
        /// Sub-packet size: the largest frame the module sends as one packet.
        public var subPacketBytes: Int
        /// Listen before talk (REG3 bit 4).
        public var listenBeforeTalk: Bool
        /// Air data rate, kbit/s; both ends must use the same.
        public var airRateKbps: Double

        init(reading r: SectionReader) {
            m0 = r.string("m0", default: "", check: ConfigChecks.lineName)
            m1 = r.string("m1", default: "", check: ConfigChecks.lineName)
            aux = r.string("aux", default: "", check: ConfigChecks.lineName)
            address = r.int("address", default: 0, min: 0, max: 65_535)
            netID = r.int("net_id", default: 0, min: 0, max: 255)
            subPacketBytes = r.int("sub_packet_bytes", default: 240) { value in
                Self.subPacketSizes.contains(value) ? nil : ValueProblem("must be 240, 128, 64 or 32, found \(value)")
            }
            listenBeforeTalk = r.bool("lbt", default: false)
            airRateKbps = r.double("air_rate_kbps", default: 2.4) { value in
                Self.airRatesKbps.contains(where: { abs($0 - value) < 0.001 }) ? nil
                    : ValueProblem("must be one of the module's air rates 0.3, 1.2, 2.4, 4.8, 9.6, 19.2, 38.4, 62.5 (kbps), found \(value)")
            }
        }

        /// The module channel (REG2) for a frequency: 850.125 + CH MHz (CH 0–80) at and above
        /// 600 MHz, 410.125 + CH MHz (CH 0–83) below; `nil` for any other frequency.
        public static func channel(frequencyMHz: Double) -> Int? {
            let (base, top) = band(frequencyMHz)
            let offset = frequencyMHz - base
            let channel = offset.rounded()
            guard frequencyMHz.isFinite, abs(offset - channel) < 0.001, channel >= 0, channel <= Double(top) else { return nil }
            return Int(channel)
        }

        /// The valid module frequency closest to `frequencyMHz`.
        public static func nearestFrequencyMHz(to frequencyMHz: Double) -> Double {
            let (base, top) = band(frequencyMHz)
            return base + min(max((frequencyMHz - base).rounded(), 0), Double(top))
        }

        private static func band(_ frequencyMHz: Double) -> (base: Double, top: Int) {
            frequencyMHz < 600 ? (410.125, 83) : (850.125, 80)
        }
    }
}
