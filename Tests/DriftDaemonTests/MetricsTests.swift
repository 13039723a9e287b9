@testable import DriftDaemon
import DriftCore
import DriftMesh
import DriftSystem
import Foundation
import Testing

@Suite("Metrics: Prometheus exposition")
struct MetricsTests {
    static func sources(faults: [String: String], bottles: [BottleState: Int] = [.openable: 2, .dying: 1]) -> BoxMetrics.Sources {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        return BoxMetrics.Sources(
            weather: { LatestReadings.Weather(celsius: 17.5, hectopascals: 1012.25, relativeHumidity: 55, at: start.addingTimeInterval(90)) },
            gps: {
                GPSStatus.Snapshot(reception: .fix, latitude: 52.5, longitude: 13.4, mode: "3D", hdop: 0.9,
                                   at: start.addingTimeInterval(95), source: "sim")
            },
            bottles: { bottles }, faults: { faults }, connections: { 7 }, startedAt: start)
    }

    @Test("gauges describe the box at scrape time: weather, GPS, bottles by state, faults, connections")
    func gauges() async throws {
        let metrics = BoxMetrics()
        let now = Date(timeIntervalSince1970: 1_700_000_100)
        await metrics.refresh(from: Self.sources(faults: ["gps": "no NMEA for 30 s"]), now: now)
        var text = String(decoding: metrics.render(), as: UTF8.self)
        for line in [
            "driftd_uptime_seconds 100.0", "driftd_weather_temperature_celsius 17.5", "driftd_weather_pressure_hpa 1012.25",
            "driftd_weather_reading_age_seconds 10.0", "driftd_gps_fix_mode 3.0", "driftd_gps_hdop 0.9", "driftd_gps_fix_age_seconds 5.0",
            #"driftd_bottles{state="openable"} 2.0"#, #"driftd_bottles{state="locked"} 0.0"#, #"driftd_bottles{state="dying"} 1.0"#,
            #"driftd_fault{component="gps"} 1.0"#, "driftd_live_connections 7.0",
        ] {
            #expect(text.contains(line + "\n"), "missing \(line) in:\n\(text)")
        }
        #expect(text.contains("# TYPE driftd_bottles gauge"))
        // A process-wide count (other tests in this process may add to it meanwhile).
        let rescued = text.split(separator: "\n").first { $0.hasPrefix("driftd_readiness_rescued_waits ") }
        #expect(rescued.flatMap { Double($0.split(separator: " ")[1]) }.map { $0 >= 0 && $0 <= Double(ReadinessMonitor.rescuedWaits) } == true)
        // A cleared fault drops to 0 rather than vanishing (so alerts resolve).
        await metrics.refresh(from: Self.sources(faults: [:]), now: now)
        text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(text.contains(#"driftd_fault{component="gps"} 0.0"# + "\n"), "\(text)")
    }

    @Test("the mesh's neighbours, airtime, outbox and frame verdicts are gauges when the mesh runs")
    func meshGauges() async throws {
        let metrics = BoxMetrics()
        var counters = MeshCounters()
        counters.heard = 12
        counters.forged = 2
        counters.malformed = ["truncated": 1]
        counters.sentRelays = 3
        counters.plannedRelays = 2
        var status = MeshStatus(
            node: "!0a0b0c0d",
            neighbours: [.init(id: "!01020304", rssi: -100, snr: 4.5, lastHeardSecondsAgo: 12, theirNeighbours: 3)],
            counters: counters, outbox: .init(queued: 1, sent: 4, delivered: 2, failed: 0),
            heldPackets: 9, heldBytes: 1_800, seen: 30, queued: 0, airtimeUsedPercent: 1.25, channelUtilisationPercent: 3.5)
        status.budgetHeldSeconds = 42.5
        let snapshot = status
        var sources = Self.sources(faults: [:])
        sources.mesh = { snapshot }
        await metrics.refresh(from: sources, now: Date(timeIntervalSince1970: 1_700_000_100))
        let text = String(decoding: metrics.render(), as: UTF8.self)
        for line in [
            "driftd_mesh_neighbours 1.0", "driftd_mesh_airtime_used_percent 1.25", "driftd_mesh_budget_held_seconds 42.5", "driftd_mesh_channel_utilisation_percent 3.5",
            "driftd_mesh_held_packets 9.0", #"driftd_mesh_outbox{state="delivered"} 2.0"#, #"driftd_mesh_frames{verdict="heard"} 12.0"#,
            #"driftd_mesh_frames{verdict="forged"} 2.0"#, #"driftd_mesh_frames{verdict="malformed_truncated"} 1.0"#,
            #"driftd_mesh_sent{kind="relay"} 3.0"#, "driftd_mesh_planned_relays 2.0",
        ] {
            #expect(text.contains(line + "\n"), "missing \(line) in:\n\(text)")
        }
    }

    @Test("API requests and errors are counted through swift-metrics into the shared registry")
    func counters() {
        let metrics = BoxMetrics.shared
        BoxMetrics.countRequest(method: "GET", route: "/api/v1/bottles", status: 200)
        BoxMetrics.countRequest(method: "GET", route: "/api/v1/bottles", status: 200)
        BoxMetrics.countError(code: "locked")
        let text = String(decoding: metrics.render(), as: UTF8.self)
        let requests = text.split(separator: "\n").first { $0.hasPrefix("driftd_api_requests_total{") && $0.contains(#"route="/api/v1/bottles""#) }
        #expect(requests.map { $0.hasSuffix(" 2") } == true, "\(text)")
        #expect(text.contains(#"driftd_api_errors_total{code="locked"} 1"#), "\(text)")
    }
}
