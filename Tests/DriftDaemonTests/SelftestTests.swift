@testable import DriftDaemon
import DriftConfig
import DriftSystem
import Foundation
import TestSupport
import Testing

@Suite("selftest")
struct SelftestTests {
    func simConfig(replacing replacements: [(String, String)] = [], dataDir: String) throws -> DriftConfiguration {
        var text = DriftConfiguration.embeddedDefaultText
        for (old, new) in replacements { text = text.replacingOccurrences(of: old, with: new) }
        return try ConfigLoader(systemBoardDirectories: []).load(text: text, fileName: "test.toml", baseDirectory: nil)
            .configuration.applying(dataDirectory: dataDir)
    }

    @Test("the simulated board passes every check")
    func simPasses() async throws {
        let directory = try TemporaryDirectory(prefix: "selftest")
        defer { directory.remove() }
        // Its own radio port: other tests' daemons may hold the default one (a taken port is a radio FAIL).
        let port = try LoopbackPorts.take()
        var selftest = Selftest(config: try simConfig(replacing: [("radio_udp_port = 47300", "radio_udp_port = \(port)")], dataDir: directory.path),
                                environment: [:])
        selftest.ledWalkStep = .milliseconds(1)
        let report = await selftest.run()
        #expect(report.passed, "\(report.renderText())")
        #expect(report.checks.contains { $0.name == "bme280" && $0.status == .pass })
        #expect(report.checks.contains { $0.name == "leds.status" && $0.status == .pass })
    }

    @Test("a data directory others can read fails storage.permissions, naming what is exposed")
    func exposedDataDirectory() throws {
        let directory = try TemporaryDirectory(prefix: "selftest-perm")
        defer { directory.remove() }
        let selftest = Selftest(config: try simConfig(dataDir: directory.path), environment: [:])
        #expect(selftest.permissionsCheck(directory.path).status == .pass)
        _ = FileManager.default.createFile(atPath: directory.appending("drift.sqlite"), contents: Data(),
                                       attributes: [.posixPermissions: 0o644])
        chmod(directory.path, 0o755)
        let check = selftest.permissionsCheck(directory.path)
        #expect(check.status == .fail)
        #expect(check.detail.contains("mode 755") && check.detail.contains("drift.sqlite (mode 644)"), "\(check.detail)")
        // Below the top level too: a photo another tool left readable deep in media/.
        chmod(directory.path, 0o700)
        chmod(directory.appending("drift.sqlite"), 0o600)
        #expect(selftest.permissionsCheck(directory.path).status == .pass)
        let nested = directory.appending("media/bottles/ab")
        try FileManager.default.createDirectory(atPath: nested, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        chmod(directory.appending("media"), 0o700)
        chmod(directory.appending("media/bottles"), 0o700)
        _ = FileManager.default.createFile(atPath: nested + "/photo.jpg", contents: Data([1, 2, 3]), attributes: [.posixPermissions: 0o644])
        let deep = selftest.permissionsCheck(directory.path)
        #expect(deep.status == .fail)
        #expect(deep.detail.contains("media/bottles/ab/photo.jpg (mode 644)"), "\(deep.detail)")
    }

    @Test("a GPS on a real pseudo-terminal: NMEA seen passes, silence fails with the reason")
    func gpsOnPseudoTerminal() async throws {
        let directory = try TemporaryDirectory(prefix: "selftest")
        defer { directory.remove() }
        let pty = try PseudoTerminalPair()
        let config = try simConfig(replacing: [
            ("kind = \"sim\"\nport = \"sim\"\nbaud = 0", "kind = \"nmea\"\nport = \"\(pty.slavePath)\"\nbaud = 9600"),
        ], dataDir: directory.path)
        #expect(config.gps.kind == .nmea)
        var selftest = Selftest(config: config, environment: [:])
        selftest.gpsListen = .milliseconds(600)
        let silent = await selftest.gpsCheck()
        #expect(silent.status == .fail)
        #expect(silent.detail.contains("nothing arrived"), "\(silent.detail)")

        let feeder = Task {
            for _ in 0..<20 {
                try pty.write(Array("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n".utf8))
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let heard = await selftest.gpsCheck()
        feeder.cancel()
        #expect(heard.status == .pass, "\(heard.detail)")
    }

    @Test("a GPIO line held by someone else fails with a hint to stop driftd")
    func busyLine() async throws {
        #expect(Selftest.containsNMEA(Array("noise$GNRMC,1*00".utf8)))
        #expect(!Selftest.containsNMEA(Array("$$$$ garbage".utf8)))
    }
}
