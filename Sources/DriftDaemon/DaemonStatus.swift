import Foundation

/// What `driftd status` shows: the box, how it is configured and how it is doing.
public struct DaemonStatus: Codable, Sendable, Equatable {
    public struct Box: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var board: String
        public var country: String
        public var timezone: String
    }

    public struct Config: Codable, Sendable, Equatable {
        /// `file`, `last-known-good` or `embedded`.
        public var source: String
        /// The files merged, board profile first.
        public var files: [String]
        /// Why the config file was not used, when the last known good copy runs.
        public var problems: [String]
    }

    public struct Health: Codable, Sendable, Equatable {
        public var alive: Bool
        public var stalled: [String]
        public var faults: [String: String]
    }

    public var version: String
    public var box: Box
    public var config: Config
    public var dataDirectory: String
    public var startedAt: Date
    public var uptimeSeconds: Double
    public var health: Health
    public var watchdog: Bool
    /// Bottles here by state (`locked`, `openable`, `active`, `dying`).
    public var bottles: [String: Int]
    /// The latest weather reading, if any.
    public var weather: LatestReadings.Weather?
    /// The GPS receiver: absent, searching or fix (with position and age).
    public var gps: GPSStatus.Snapshot
    /// Where the box's time comes from: the kernel's synchronisation (NTP, RTC), GPS, or
    /// nowhere yet (time conditions stay locked).
    public var clock: String?
    /// The mesh in one line's worth of figures; `nil` when the mesh does not run.
    public var mesh: Mesh?
    /// The camp directory; `nil` when the camp service does not run.
    public var camps: Camps?
    /// The power profile that runs: `default` or `beacon` (docs/power.md).
    public var powerProfile: String?

    /// The camps heard (`driftd ctl camp list` has the rest).
    public struct Camps: Codable, Sendable, Equatable {
        /// This box's camp name, empty when it is no camp.
        public var me: String
        public var beaconKit: Bool
        public var known: Int
        /// Names, most recently heard first.
        public var names: [String]
        /// Unexpired emergencies heard.
        public var emergencies: Int

        public init(me: String, beaconKit: Bool, listing: CampListing) {
            self.me = me
            self.beaconKit = beaconKit
            known = listing.camps.count
            names = listing.camps.map(\.name)
            emergencies = listing.messages.filter { $0.kind == "emergency" && !$0.fromMe }.count
        }
    }

    /// The mesh's summary (`driftd mesh status` has the rest).
    public struct Mesh: Codable, Sendable, Equatable {
        public var node: String
        public var neighbours: Int
        public var outboxQueued: Int
        public var outboxFailed: Int
        public var airtimeUsedPercent: Double

        public init(_ status: MeshStatus) {
            node = status.node
            neighbours = status.neighbours.count
            outboxQueued = status.outbox.queued
            outboxFailed = status.outbox.failed
            airtimeUsedPercent = status.airtimeUsedPercent
        }
    }

    /// The human-readable form printed by `driftd status`.
    public func renderText() -> String {
        var lines: [String] = []
        lines.append("\(box.name) (\(box.id)) — board \(box.board), \(box.country), \(box.timezone)")
        lines.append("driftd \(version), up \(Self.formatUptime(uptimeSeconds)), data in \(dataDirectory)")
        switch config.source {
        case "last-known-good":
            lines.append("config: RUNNING LAST KNOWN GOOD — the config file is invalid:")
            lines.append(contentsOf: config.problems.map { "  \($0)" })
        case "embedded":
            lines.append("config: embedded simulated-board default")
        default:
            lines.append("config: \(config.files.joined(separator: " + "))")
        }
        if let powerProfile {
            lines.append(powerProfile == "beacon"
                ? "power: beacon profile (no HTTP server, no access point, status LED only, GPS asleep between checks)"
                : "power: default profile")
        }
        let order = ["locked", "openable", "active", "dying"]
        lines.append("bottles: " + order.map { "\(bottles[$0] ?? 0) \($0)" }.joined(separator: ", "))
        if let weather {
            let age = Int(Date().timeIntervalSince(weather.at))
            lines.append(String(format: "weather: %.1f °C, %.1f hPa, %.0f %% (%d s ago)", weather.celsius, weather.hectopascals, weather.relativeHumidity, age))
        } else {
            lines.append("weather: no reading yet")
        }
        switch gps.reception {
        case .absent: lines.append("gps: no receiver answering (\(gps.source))")
        case .searching: lines.append("gps: receiver answers, searching for a fix (\(gps.source))")
        case .fix:
            let age = gps.at.map { Int(Date().timeIntervalSince($0)) } ?? 0
            lines.append(String(format: "gps: %@ fix %.6f, %.6f, hdop %@ (%d s ago, %@)", gps.mode ?? "?", gps.latitude ?? 0, gps.longitude ?? 0,
                                gps.hdop.map { String(format: "%.1f", $0) } ?? "?", age, gps.source))
        }
        if let power = gps.power {
            var line = "gps power: \(power.phase)"
            if power.phase == "settled" { line += ", one fix every \(Int(power.fixIntervalSeconds)) s" }
            if let next = power.nextInSeconds { line += power.phase == "asleep" ? ", woken in \(Int(next)) s" : ", check ends in \(Int(next)) s" }
            line += power.receiver.map { " (\($0)" } ?? " (receiver not recognised yet: nothing sent"
            line += ", \(power.sleeps) sleep(s))"
            lines.append(line)
        }
        if let clock { lines.append("clock: \(clock)") }
        if let mesh {
            lines.append(String(format: "mesh: %@, %d neighbour(s), outbox %d queued / %d failed, airtime %.2f %% of the hour",
                                mesh.node, mesh.neighbours, mesh.outboxQueued, mesh.outboxFailed, mesh.airtimeUsedPercent))
        }
        if let camps {
            var line = "camps: \(camps.known) known"
            if !camps.names.isEmpty { line += " (\(camps.names.prefix(8).joined(separator: ", "))\(camps.names.count > 8 ? ", …" : ""))" }
            if camps.emergencies > 0 { line += ", \(camps.emergencies) EMERGENCY message(s)" }
            if !camps.me.isEmpty { line += "; this box is camp \(camps.me)\(camps.beaconKit ? " (beacon kit)" : "")" }
            lines.append(line)
        }
        lines.append("health: \(health.alive ? "all main loops alive" : "STALLED: \(health.stalled.joined(separator: ", "))")\(watchdog ? ", systemd watchdog on" : "")")
        for (component, fault) in health.faults.sorted(by: { $0.key < $1.key }) {
            lines.append("fault: \(component): \(fault)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func formatUptime(_ seconds: Double) -> String {
        let total = Int(seconds)
        let days = total / 86_400, hours = total % 86_400 / 3_600, minutes = total % 3_600 / 60, secs = total % 60
        if days > 0 { return "\(days)d \(hours)h \(minutes)m" }
        if hours > 0 { return "\(hours)h \(minutes)m" }
        if minutes > 0 { return "\(minutes)m \(secs)s" }
        return "\(secs)s"
    }
}
