extension DriftConfiguration {
    /// `[power]`: how much of the box runs, for a box on a battery (`docs/power.md`).
    public struct Power: Sendable, Equatable {
        /// `default` or `beacon` (a camp beacon kit: no HTTP server, no access point, few LEDs,
        /// the GPS asleep between position checks).
        public var profile: PowerProfile
        /// Which command set puts the GPS receiver to sleep: `auto` (recognised from what it
        /// sends), `ublox`, `mediatek`, or `none` (never sent).
        public var gpsReceiver: GPSReceiverSetting
        /// Seconds the receiver sleeps between position checks (beacon profile).
        public var gpsWakeIntervalS: Int
        /// The longest a position check keeps the receiver awake, seconds.
        public var gpsCheckS: Int

        /// How long the receiver sleeps between position checks.
        public var gpsWakeInterval: Duration { .seconds(gpsWakeIntervalS) }
        /// The longest one position check keeps the receiver awake.
        public var gpsCheck: Duration { .seconds(gpsCheckS) }

        init(reading r: SectionReader) {
            profile = r.choice("profile", default: .default)
            gpsReceiver = r.choice("gps_receiver", default: .auto)
            gpsWakeIntervalS = r.int("gps_wake_interval_s", default: 1_800, min: 60, max: 86_400)
            gpsCheckS = r.int("gps_check_s", default: 120, min: 10, max: 3_600)
        }
    }

    /// The power profile in force: `power.profile`, or `beacon` when the older
    /// `camp.beacon_kit = true` asks for a beacon kit.
    public var powerProfile: PowerProfile {
        camp.beaconKit ? .beacon : power.profile
    }

    /// Whether housekeeping trims memory (`daemon.trim_memory`; left out: in the beacon profile
    /// only). A trim unmaps the executable's code; a box that then serves a crowd maps it back
    /// and ran its festival with 19 % more CPU and twice the chat fan-out p99 on this project's
    /// 2-core machine (docs/performance.md, "Giving memory back"), so a box with a visitor page
    /// keeps its code mapped unless told otherwise; a beacon has no crowd and needs the memory.
    public var trimsMemory: Bool {
        daemon.trimMemory ?? (powerProfile == .beacon)
    }
}

/// How much of the box runs (`power.profile`).
public enum PowerProfile: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Everything the config turns on: the visitor page, the access point, every LED.
    case `default`
    /// A camp beacon kit on a battery: no HTTP server (metrics only when `features.metrics`
    /// is set), no access point, HDMI off, only the status LED, the GPS asleep between
    /// position checks; the radio listens and the mesh and camp beacons run as usual.
    case beacon
}

/// Which command set puts the GPS receiver to sleep (`power.gps_receiver`).
public enum GPSReceiverSetting: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Recognised from what the receiver sends (`$PMTK…` or a u-blox `$GPTXT`/`$PUBX`);
    /// nothing is sent to a receiver not recognised.
    case auto
    /// u-blox (NEO-6M, NEO-M8N, …): UBX-RXM-PMREQ.
    case ublox
    /// MediaTek (MT3339, MT3333 and modules built on them): `$PMTK161`.
    case mediatek
    /// Never send the receiver a power command.
    case none
}
