import DriftCore
import DriftDaemon
import Foundation
import GNSS
import Logging
import ServiceLifecycle
import TestSupport
import Testing

@Suite("GPS service: stable box position")
struct GPSStablePositionTests {
    @Test("after enough good fixes the published position is the stable one, not the last fix")
    func publishesStablePosition() async throws {
        let home = SimulatedGPS.Position(latitude: 52.4731, longitude: 13.4019, altitude: 44, hasFix: true)
        var stray = home
        stray.latitude += 0.002   // about 220 m north: one multipath jump, last of the stream
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var text = ""
        for second in 0..<40 { text += SimulatedGPS.sentences(for: home, at: start.addingTimeInterval(Double(second))) }
        text += SimulatedGPS.sentences(for: stray, at: start.addingTimeInterval(40))
        text += SimulatedGPS.sentences(for: home, at: start.addingTimeInterval(41))   // closes the stray epoch
        let bytes = Array(text.utf8)

        let status = GPSStatus(source: "sim")
        let (inputs, ambient) = AsyncStream<AmbientInput>.makeStream()
        let service = GPSService(source: .stream({ AsyncStream { $0.yield(bytes) } }), ambient: ambient, status: status,
                                 health: HealthRegistry(), logger: Logger(label: "test"))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var fixes: [PositionFix] = []
            for await input in inputs {
                if case .gps(let state) = input, let fix = state.lastFix { fixes.append(fix) }
                if fixes.count == 41 { break }
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            #expect(fixes.count == 41)
            let last = try #require(fixes.last)
            #expect(last.position.distance(to: try GeoPoint(latitude: home.latitude, longitude: home.longitude)) < 1,
                    "the stray fix is not published as the box position: \(last.position)")
            let snapshot = status.snapshot
            #expect(abs((snapshot.latitude ?? 0) - stray.latitude) < 1e-6, "the status still shows the receiver's own fix")
            #expect(snapshot.stableFixes == 40)
            #expect(abs((snapshot.stableLatitude ?? 0) - home.latitude) < 1e-6)
        }
    }
    @Test("with an ambient gate that holds the GPS back (no bottle reads it), no state reaches the processor's stream and the gate keeps the latest")
    func gateHoldsStates() async throws {
        let home = SimulatedGPS.Position(latitude: 52.4731, longitude: 13.4019, altitude: 44, hasFix: true)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var text = ""
        for second in 0..<6 { text += SimulatedGPS.sentences(for: home, at: start.addingTimeInterval(Double(second))) }
        let bytes = Array(text.utf8)
        let gate = AmbientGate(generation: { 7 })
        gate.judged(gpsRead: false, weatherRead: true, generation: 7)
        let (inputs, ambient) = AsyncStream<AmbientInput>.makeStream()
        let service = GPSService(source: .stream({ AsyncStream { $0.yield(bytes) } }), ambient: ambient, status: GPSStatus(source: "sim"),
                                 health: HealthRegistry(), logger: Logger(label: "test"), gate: gate)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // The receiver's first answer and five fixes (the sixth epoch is closed by nothing after
            // it); then the stream ends and the receiver counts as lost: the gate holds that too.
            #expect(try await eventually { gate.held >= 6 }, "\(gate.held)")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        ambient.finish()
        var sent = 0
        for await _ in inputs { sent += 1 }
        #expect(sent == 0)
        #expect(gate.latest != nil)
    }
}
