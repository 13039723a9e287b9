import DriftSystem
import Foundation
import TestSupport
import Testing

@Suite("driftd ctl drives the simulated board")
struct CtlCommandTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    @Test("press, hold, weather, gps and leds through the control socket; bad input is exit 1 with the reason",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func ctl() async throws {
        let directory = try TemporaryDirectory(prefix: "ctl")
        defer { directory.remove() }
        let data = directory.appending("data")
        let listener = try NotifySocketListener.abstract()
        let daemon = try DriftdProcess(arguments: ["run", "--config", "board/sim.toml", "--data-dir", data],
                                       environment: ["NOTIFY_SOCKET": listener.address], stderrPath: directory.appending("log"))
        _ = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(30)) }

        let press = try await DriftdProcess.runToCompletion(["ctl", "press", "presence", "--data-dir", data])
        #expect(press.status == 0 && press.stdout.contains("pressed presence for 150 ms"), "\(press)")
        let hold = try await DriftdProcess.runToCompletion(["ctl", "hold", "keep-alive", "--seconds", "0.3", "--data-dir", data])
        #expect(hold.status == 0 && hold.stdout.contains("held keep-alive"), "\(hold)")

        let weather = try await DriftdProcess.runToCompletion(["ctl", "weather", "--celsius", "31.5", "--humidity", "20", "--data-dir", data, "--json"])
        let reading = try JSONSerialization.jsonObject(with: Data(weather.stdout.utf8)) as? [String: Any]
        #expect(reading?["celsius"] as? Double == 31.5, "\(weather)")
        #expect(reading?["mode"] as? String == "fixed")

        let gps = try await DriftdProcess.runToCompletion(["ctl", "gps", "--lat", "48.137", "--lon", "11.575", "--data-dir", data])
        #expect(gps.status == 0 && gps.stdout.contains("48.137000, 11.575000"), "\(gps)")

        let leds = try await DriftdProcess.runToCompletion(["ctl", "leds", "--data-dir", data, "--json"])
        let lines = (try JSONSerialization.jsonObject(with: Data(leds.stdout.utf8)) as? [String: Any])?["lines"] as? [String: Bool]
        #expect(Set(lines?.keys.map { $0 } ?? []) == ["status", "bottle", "radio", "gps"], "\(leds)")

        let bad = try await DriftdProcess.runToCompletion(["ctl", "press", "doorbell", "--data-dir", data])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("button must be one of: keep-alive, presence"), "\(bad)")
        let tooLong = try await DriftdProcess.runToCompletion(["ctl", "hold", "presence", "--seconds", "90", "--data-dir", data])
        #expect(tooLong.status == 2, "\(tooLong)")

        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(20)) == 0)
    }

    @Test("without a running daemon ctl says so and exits 1", .enabled(if: binaryBuilt, "driftd binary not built"))
    func noDaemon() async throws {
        let directory = try TemporaryDirectory(prefix: "ctl-none")
        defer { directory.remove() }
        let result = try await DriftdProcess.runToCompletion(["ctl", "leds", "--data-dir", directory.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("driftd ctl:"), "\(result)")
    }
}
