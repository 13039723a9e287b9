import DriftCore
import DriftMesh
import DriftStore
import DriftSystem
import Foundation
import Metrics
import Prometheus
import Synchronization

/// The box's Prometheus metrics (`[metrics]`, `features.metrics = true`).
///
/// One registry per process. Counters that code increments as things happen (API
/// requests and errors) go through swift-metrics, bootstrapped once with the registry's
/// factory, so they cost nothing when metrics are off. Gauges that describe the box now
/// (weather, GPS, bottles by state, faults, live connections) are read from their
/// sources when Prometheus scrapes (``refresh(from:)``), so no service has to push them.
public final class BoxMetrics: Sendable {
    /// Where the scrape-time gauges come from.
    public struct Sources: Sendable {
        public var weather: @Sendable () -> LatestReadings.Weather?
        public var gps: @Sendable () -> GPSStatus.Snapshot
        public var bottles: @Sendable () async -> [BottleState: Int]
        public var faults: @Sendable () -> [String: String]
        public var connections: @Sendable () async -> Int
        public var startedAt: Date
        /// The mesh's state; `nil` when the mesh does not run.
        public var mesh: @Sendable () async -> MeshStatus?
        /// Camps in the directory; `nil` when the camp service does not run.
        public var camps: @Sendable () async -> Int? = { nil }
        /// The password hashing pool's counts; `nil` when there is none.
        public var passwordHashing: @Sendable () -> PasswordHashingPool.Statistics? = { nil }

        public init(weather: @escaping @Sendable () -> LatestReadings.Weather?, gps: @escaping @Sendable () -> GPSStatus.Snapshot,
                    bottles: @escaping @Sendable () async -> [BottleState: Int], faults: @escaping @Sendable () -> [String: String],
                    connections: @escaping @Sendable () async -> Int, startedAt: Date,
                    mesh: @escaping @Sendable () async -> MeshStatus? = { nil }) {
            self.mesh = mesh
            self.weather = weather
            self.gps = gps
            self.bottles = bottles
            self.faults = faults
            self.connections = connections
            self.startedAt = startedAt
        }
    }

    public let registry: PrometheusCollectorRegistry
    private let knownFaults = Mutex<Set<String>>([])

    /// The process's metrics; bootstraps swift-metrics with it on first use.
    public static let shared: BoxMetrics = {
        let metrics = BoxMetrics()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry))
        return metrics
    }()

    /// A registry of its own (tests); swift-metrics counters do not reach it.
    public init() {
        registry = PrometheusCollectorRegistry()
    }

    /// Sets every scrape-time gauge from `sources` at `now`.
    public func refresh(from sources: Sources, now: Date = Date()) async {
        gauge("driftd_uptime_seconds", "Seconds since driftd started.").set(now.timeIntervalSince(sources.startedAt))
        gauge("driftd_readiness_rescued_waits", "Descriptor waits (serial ports, sockets, GPIO) found ready by a recheck although their epoll registration never fired, since start; normally 0.")
            .set(Double(ReadinessMonitor.rescuedWaits))
        if let weather = sources.weather() {
            gauge("driftd_weather_temperature_celsius", "Latest air temperature reading.").set(weather.celsius)
            gauge("driftd_weather_humidity_percent", "Latest relative humidity reading.").set(weather.relativeHumidity)
            gauge("driftd_weather_pressure_hpa", "Latest air pressure reading.").set(weather.hectopascals)
            gauge("driftd_weather_reading_age_seconds", "Age of the latest weather reading.").set(now.timeIntervalSince(weather.at))
        }
        let gps = sources.gps()
        let mode: Double = gps.reception != .fix ? 1 : (gps.mode == "3D" ? 3 : 2)
        gauge("driftd_gps_fix_mode", "GPS fix mode as gpsd counts it: 1 no fix, 2 2D, 3 3D.").set(mode)
        gauge("driftd_gps_receiver_present", "1 while NMEA arrives from the receiver.").set(gps.reception == .absent ? 0.0 : 1.0)
        if let hdop = gps.hdop { gauge("driftd_gps_hdop", "Horizontal dilution of precision of the latest fix.").set(hdop) }
        if let at = gps.at { gauge("driftd_gps_fix_age_seconds", "Age of the latest fix.").set(now.timeIntervalSince(at)) }
        let counts = await sources.bottles()
        for state in [BottleState.locked, .openable, .active, .dying] {
            gauge("driftd_bottles", "Bottles hosted here by state.", labels: [("state", state.rawValue)])
                .set(Double(counts[state] ?? 0))
        }
        let faults = sources.faults()
        let seen = knownFaults.withLock { known in
            known.formUnion(faults.keys)
            return known
        }
        for component in seen {
            gauge("driftd_fault", "1 while a component reports a fault.", labels: [("component", component)])
                .set(faults[component] == nil ? 0.0 : 1.0)
        }
        gauge("driftd_live_connections", "Open WebSocket connections of visitors' pages.").set(Double(await sources.connections()))
        if let mesh = await sources.mesh() {
            refreshMesh(mesh)
        }
        if let camps = await sources.camps() {
            gauge("driftd_camps_known", "Camps in the directory (heard within camp.forget_after).").set(Double(camps))
        }
        if let hashing = sources.passwordHashing() {
            refreshPasswordHashing(hashing)
        }
    }

    private func refreshPasswordHashing(_ hashing: PasswordHashingPool.Statistics) {
        for (kind, count) in [("hash", hashing.hashed), ("verify", hashing.verified)] {
            gauge("driftd_password_hashing_done", "Password keys derived since start: new passwords hashed, attempts verified.", labels: [("kind", kind)])
                .set(Double(count))
        }
        gauge("driftd_password_hashing_refused", "Password drops, edits and guesses refused since start because the hashing queue was full (503 busy).")
            .set(Double(hashing.refused))
        gauge("driftd_password_hashing_running", "Password keys being derived now.").set(Double(hashing.running))
        gauge("driftd_password_hashing_waiting", "Password jobs waiting for a hashing thread now.").set(Double(hashing.waiting))
    }

    private func refreshMesh(_ mesh: MeshStatus) {
        gauge("driftd_mesh_neighbours", "Boxes heard directly (hellos) and not yet expired.").set(Double(mesh.neighbours.count))
        gauge("driftd_mesh_airtime_used_percent", "This box's own time on air over the last hour, % (the duty-cycle budget's measure).")
            .set(mesh.airtimeUsedPercent)
        gauge("driftd_mesh_budget_held_seconds", "Time since start this box's frames waited for its duty-cycle airtime budget, s.")
            .set(mesh.budgetHeldSeconds)
        gauge("driftd_mesh_channel_utilisation_percent", "Channel busy with own and heard frames, % of the time.").set(mesh.channelUtilisationPercent)
        gauge("driftd_mesh_held_packets", "Packets held for neighbours that missed them.").set(Double(mesh.heldPackets))
        gauge("driftd_mesh_seen_packets", "Entries in the persisted seen-set.").set(Double(mesh.seen))
        for (state, count) in [("queued", mesh.outbox.queued), ("sent", mesh.outbox.sent), ("delivered", mesh.outbox.delivered), ("failed", mesh.outbox.failed)] {
            gauge("driftd_mesh_outbox", "Messages in the outbox by state.", labels: [("state", state)]).set(Double(count))
        }
        let c = mesh.counters
        var verdicts: [(String, Int)] = [
            ("heard", c.heard), ("authentic", c.authentic), ("delivered", c.delivered), ("duplicate", c.duplicates),
            ("forged", c.forged), ("foreign", c.foreign), ("expired", c.expired), ("origin_forged", c.originForged), ("bad_hello", c.badHello),
        ]
        verdicts += c.malformed.map { ("malformed_\($0.key)", $0.value) }
        for (verdict, count) in verdicts {
            gauge("driftd_mesh_frames", "Frames heard since start, by what became of them.", labels: [("verdict", verdict)])
                .set(Double(count))
        }
        for (kind, count) in [("own", c.sentOwn), ("relay", c.sentRelays), ("hello", c.sentHellos), ("sync", c.sentSync)] {
            gauge("driftd_mesh_sent", "Frames queued for the radio since start, by kind.", labels: [("kind", kind)])
                .set(Double(count))
        }
        gauge("driftd_mesh_relays_cancelled", "Planned relays dropped since start because neighbours already covered them.").set(Double(c.relaysCancelled))
        gauge("driftd_mesh_planned_relays", "Floods (broadcasts, topology adverts) relayed since start because the topology plan named this box (mesh.topology_plan).").set(Double(c.plannedRelays))
    }

    /// The exposition text (Prometheus text format 0.0.4).
    public func render() -> [UInt8] {
        registry.emitToBuffer()
    }

    /// The gauge `name` (with `labels`), made on first use; `help` is its `# HELP` line.
    private func gauge(_ name: String, _ help: String, labels: [(String, String)] = []) -> Prometheus.Gauge {
        // An empty unit leaves the name as given (the descriptor joins its non-empty parts).
        registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    /// Counts one API request (route template, method, status) — a no-op when metrics are off.
    static func countRequest(method: String, route: String, status: Int) {
        Metrics.Counter(label: "driftd_api_requests_total", dimensions: [("method", method), ("route", route), ("status", String(status))])
            .increment()
    }

    /// Counts one API error by its code.
    static func countError(code: String) {
        Metrics.Counter(label: "driftd_api_errors_total", dimensions: [("code", code)]).increment()
    }
}
