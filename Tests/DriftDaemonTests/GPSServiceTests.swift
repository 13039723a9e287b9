import DriftCore
import DriftDaemon
import Foundation
import GNSS
import Logging
import ServiceLifecycle
import TestSupport
import Testing

@Suite("GPS service")
struct GPSServiceTests {
    static let capture = DriftdProcess.packageRoot + "/../shared/data/nmea/neo-m8n.log"
    static let haveCapture = FileManager.default.fileExists(atPath: capture)

    func waitFor(_ timeout: Duration, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test("the simulated receiver's sentences decode to its position, with valid checksums")
    func simulatedSentences() throws {
        let position = SimulatedGPS.Position(latitude: -33.8568, longitude: 151.2153, altitude: 12, hasFix: true)
        let text = SimulatedGPS.sentences(for: position, at: Date(timeIntervalSince1970: 1_800_000_000))
        let (sentences, epochs) = NMEADecoder.decode(Array(text.utf8) + Array(SimulatedGPS.sentences(for: position, at: Date(timeIntervalSince1970: 1_800_000_001)).utf8))
        #expect(sentences.count == 4, "every sentence framed with a valid checksum")
        let fix = try #require(epochs.first?.fix)
        #expect(abs((fix.latitude ?? 0) - position.latitude) < 1e-6)
        #expect(abs((fix.longitude ?? 0) - position.longitude) < 1e-6)
        #expect(fix.mode == .threeD)
        let noFix = SimulatedGPS.sentences(for: SimulatedGPS.Position(latitude: 0, longitude: 0, altitude: 0, hasFix: false), at: Date())
        #expect(NMEADecoder.decode(Array(noFix.utf8)).sentences.count == 2)
    }

    @Test("a real capture through a pseudo-terminal gives fixes; unplugging is reported; a replugged receiver is picked up again",
          .enabled(if: haveCapture, "../shared/data/nmea is absent"))
    func serialUnplugReplug() async throws {
        let directory = try TemporaryDirectory(prefix: "gps")
        defer { directory.remove() }
        let link = directory.appending("gps-by-id")   // like /dev/serial/by-id/…
        var pty = try PseudoTerminalPair()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.slavePath)
        let capture = try Data(contentsOf: URL(fileURLWithPath: Self.capture))

        let status = GPSStatus(source: "nmea")
        let health = HealthRegistry()
        let (inputs, ambient) = AsyncStream<AmbientInput>.makeStream(bufferingPolicy: .bufferingNewest(16))
        _ = inputs
        let service = GPSService(source: .serial(path: link, baud: 9600), ambient: ambient, status: status,
                                 health: health, logger: Logger(label: "test"), silenceLimit: .seconds(1))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // The port is opened (and made raw) by the service; then feed the capture in pieces.
            #expect(try await pty.waitUntilRaw(), "the service never opened the port")
            for chunk in stride(from: 0, to: capture.count, by: 512) {
                try pty.write(Array(capture[chunk..<min(capture.count, chunk + 512)]))
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(try await waitFor(.seconds(10)) { status.snapshot.reception == .fix }, "\(status.snapshot)")
            #expect(health.evaluate().faults[GPSService.component] == nil)

            // Unplug: the far end goes away.
            pty.closeMaster()
            #expect(try await waitFor(.seconds(10)) { status.snapshot.reception == .absent })
            #expect(health.evaluate().faults[GPSService.component] != nil)

            // Replug: a new receiver appears behind the same link; the service reopens it.
            pty = try PseudoTerminalPair()
            try FileManager.default.removeItem(atPath: link)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pty.slavePath)
            let feeder = Task { [pty] in
                for _ in 0..<400 {
                    try pty.write(Array(capture.prefix(2048)))
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(try await waitFor(.seconds(20)) { status.snapshot.reception == .fix }, "\(status.snapshot)")
            #expect(health.evaluate().faults[GPSService.component] == nil)
            feeder.cancel()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("a silent receiver is reported as a fault with the reason")
    func silentReceiver() async throws {
        let pty = try PseudoTerminalPair()
        let status = GPSStatus(source: "nmea")
        let health = HealthRegistry()
        let (_, ambient) = AsyncStream<AmbientInput>.makeStream()
        let service = GPSService(source: .serial(path: pty.slavePath, baud: 9600), ambient: ambient, status: status,
                                 health: health, logger: Logger(label: "test"), silenceLimit: .milliseconds(500))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(try await waitFor(.seconds(40)) { health.evaluate().faults[GPSService.component]?.contains("silent") == true },
                    "\(health.evaluate().faults)")
            #expect(status.snapshot.reception == .absent)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
