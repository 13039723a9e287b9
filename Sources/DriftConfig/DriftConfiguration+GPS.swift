extension DriftConfiguration {
    /// `[gps]`: the position and time source.
    public struct GPS: Sendable, Equatable {
        public var kind: GPSKind
        /// Device path, `auto` (first USB/serial receiver that speaks NMEA), or `sim`.
        public var port: String
        /// 0 = auto-detect, else a standard rate.
        public var baud: Int
        public var gpsdAddress: HostPort
        /// Fixes with a worse horizontal dilution of precision are ignored.
        public var maxHDOP: Double
        /// A fix older than this counts as no fix.
        public var maxFixAge: Duration
        /// A box whose good fixes stay this many metres from its stable position has been moved.
        public var movedThresholdM: Double
        /// Set the system clock from GPS time while the kernel says it is unsynchronised.
        public var setClock: Bool
        /// chrony SHM refclock unit fed with GPS time, -1 = off.
        public var chronySHM: Int
        /// Default profile: once the stable position stands, the receiver fixes once per this
        /// (1 = stays at a fix a second). Beacon profile: unused (the receiver sleeps).
        public var settledFixInterval: Duration

        init(reading r: SectionReader) {
            kind = r.choice("kind")
            port = r.string("port", default: "auto") { ConfigChecks.devicePath($0, keywords: ["auto", "sim"]) }
            baud = r.int("baud", default: 0) { ConfigChecks.baud($0, allowAuto: true) }
            gpsdAddress = r.hostPort("gpsd_address", default: "127.0.0.1:2947")
            maxHDOP = r.double("max_hdop", default: 5.0, above: 0)
            maxFixAge = .seconds(r.int("max_fix_age_s", default: 30, min: 1, max: 86_400))
            movedThresholdM = r.double("moved_threshold_m", default: 100, min: 10, max: 100_000)
            setClock = r.bool("set_clock", default: true)
            chronySHM = r.int("chrony_shm", default: -1, min: -1, max: 3)
            settledFixInterval = .seconds(r.int("settled_fix_interval_s", default: 10, min: 1, max: 10))
        }
    }

    /// `[sim]`: the simulated world (meaningful with the `sim` board, `radio.kind`/`gps.kind` = `sim`).
    public struct Sim: Sendable, Equatable {
        /// Where the simulated GPS puts the box.
        public var latitude: Double
        public var longitude: Double
        public var altitudeM: Double
        /// NMEA log to replay instead of a fixed position; `""` = none.
        public var nmeaReplay: String
        /// Loopback UDP port of this box's simulated radio.
        public var radioUDPPort: Int
        /// Simulated radios this one can hear.
        public var radioPeers: [HostPort]
        /// Hard radio range in metres between simulated boxes; 0 = the path-loss model decides.
        public var radioRangeM: Double
        /// Log-distance path-loss exponent of the simulated medium.
        public var radioPathLossExponent: Double
        /// Probability (0–1) that a simulated frame in range is lost.
        public var radioLoss: Double
        /// Extra delivery delay of the simulated medium, milliseconds.
        public var radioLatencyMs: Int
        /// Frames a simulated radio hears on the air together collide (``SimulatedRadioMedium``).
        public var radioCollisions: Bool

        init(reading r: SectionReader) {
            latitude = r.double("latitude", default: 52.4731, min: -90, max: 90)
            longitude = r.double("longitude", default: 13.4019, min: -180, max: 180)
            altitudeM = r.double("altitude_m", default: 44.0, min: -500, max: 9000)
            nmeaReplay = r.string("nmea_replay", default: "")
            radioUDPPort = r.int("radio_udp_port", default: 47300, min: 1, max: 65535)
            radioPeers = r.stringArray("radio_peers", default: []) { text in
                do throws(HostPort.ParseError) {
                    _ = try HostPort.parse(text)
                    return nil
                } catch {
                    return ValueProblem(error.description)
                }
            }.compactMap { try? HostPort.parse($0) }
            radioRangeM = r.double("radio_range_m", default: 0, min: 0, max: 1_000_000)
            radioPathLossExponent = r.double("radio_path_loss_exponent", default: 3.0, min: 2.0, max: 6.0)
            radioLoss = r.double("radio_loss", default: 0, min: 0, max: 1)
            radioLatencyMs = r.int("radio_latency_ms", default: 0, min: 0, max: 10_000)
            radioCollisions = r.bool("radio_collisions", default: true)
        }
    }
}
