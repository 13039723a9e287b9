import DriftDaemon
import DriftSystem
import Foundation
import Hardware
import TestSupport
import Testing

/// `driftd` as a real child process: systemd's notify protocol on real sockets, signals, exit codes.
@Suite("driftd as a process", .serialized)
struct DaemonProcessTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    @Test("READY=1 within a few seconds, WATCHDOG=1 pings, STOPPING=1 and exit 0 on SIGTERM",
          .enabled(if: binaryBuilt, "driftd binary not built"),
          arguments: ["path", "abstract"])
    func notifyLifecycle(socketKind: String) async throws {
        let directory = try TemporaryDirectory(prefix: "run")
        defer { directory.remove() }
        let listener = socketKind == "path"
            ? try NotifySocketListener(address: directory.appending("notify.sock"))
            : try NotifySocketListener.abstract()
        let started = ContinuousClock.now
        let daemon = try DriftdProcess(
            arguments: ["run", "--config", "board/sim.toml", "--data-dir", directory.appending("data")],
            environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "400000"],
            stderrPath: directory.appending("stderr.log")
        )
        // Start-up time is not asserted here (a loaded test machine takes tens of seconds; a box
        // takes about one): the limit only ends a daemon that never gets ready.
        let untilReady = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(90)) }
        print("driftd READY=1 after \(ContinuousClock.now - started) (socket: \(socketKind))")
        #expect(untilReady.last?.hasPrefix("READY=1\nSTATUS=") == true)
        // Pings at half the 400 ms interval.
        var pings = 0
        for _ in 0..<6 {
            if (try await runBlocking { try listener.receive(timeout: .seconds(10)) }) == "WATCHDOG=1" { pings += 1 }
        }
        #expect(pings >= 4, "got \(pings) pings; stderr: \(daemon.stderr)")
        let stopAsked = ContinuousClock.now
        daemon.send(SIGTERM)
        let stopping = try await runBlocking { try listener.receive(until: "STOPPING=1", timeout: .seconds(15)) }
        #expect(stopping.last == "STOPPING=1\nSTATUS=stopping")
        let status = try await daemon.waitForExit(timeout: .seconds(10))
        #expect(status == 0, "stderr: \(daemon.stderr)")
        #expect(ContinuousClock.now - stopAsked < .seconds(15))
    }

    @Test("no WATCHDOG_USEC: READY but no pings", .enabled(if: binaryBuilt, "driftd binary not built"))
    func noWatchdog() async throws {
        let directory = try TemporaryDirectory(prefix: "run")
        defer { directory.remove() }
        let listener = try NotifySocketListener.abstract()
        let daemon = try DriftdProcess(
            arguments: ["run", "--config", "board/sim.toml", "--data-dir", directory.appending("data")],
            environment: ["NOTIFY_SOCKET": listener.address],
            stderrPath: directory.appending("stderr.log")
        )
        let ready = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(30)) }
        daemon.send(SIGINT)
        // Everything it said from start to stop: READY, STATUS lines, STOPPING — no ping.
        let rest = try await runBlocking { try listener.receive(until: "STOPPING=1", timeout: .seconds(30)) }
        #expect(rest.last?.hasPrefix("STOPPING=1") == true, "\(rest)")
        #expect(!(ready + rest).contains { $0.contains("WATCHDOG=1") }, "\(ready + rest)")
        #expect(try await daemon.waitForExit(timeout: .seconds(10)) == 0)
    }

    @Test("status through the control socket; an invalid config file falls back to the last known good one",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func lastKnownGoodAndStatus() async throws {
        let directory = try TemporaryDirectory(prefix: "lkg")
        defer { directory.remove() }
        let data = directory.appending("data")
        let configPath = directory.appending("driftd.toml")
        let sim = try String(contentsOfFile: DriftdProcess.packageRoot + "/board/sim.toml", encoding: .utf8)
        try sim.write(toFile: configPath, atomically: true, encoding: .utf8)

        // First boot with a valid file: it becomes the last known good copy.
        do {
            let listener = try NotifySocketListener.abstract()
            let daemon = try DriftdProcess(arguments: ["run", "--config", configPath, "--data-dir", data],
                                           environment: ["NOTIFY_SOCKET": listener.address], stderrPath: directory.appending("1.log"))
            _ = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(30)) }
            let status = try await DriftdProcess.runToCompletion(["status", "--data-dir", data, "--json"])
            #expect(status.status == 0)
            #expect(status.stdout.contains(#""source" : "file""#))
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit(timeout: .seconds(10)) == 0)
        }
        // A field tester breaks the file: the box still starts, on the last known good config, and says so.
        try (sim + "\n[radio]\nbaud = \"fast\"\n").write(toFile: configPath, atomically: true, encoding: .utf8)
        let listener = try NotifySocketListener.abstract()
        let daemon = try DriftdProcess(arguments: ["run", "--config", configPath, "--data-dir", data],
                                       environment: ["NOTIFY_SOCKET": listener.address], stderrPath: directory.appending("2.log"))
        let ready = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(30)) }
        #expect(ready.last?.contains("CONFIG INVALID") == true)
        let status = try await DriftdProcess.runToCompletion(["status", "--data-dir", data])
        #expect(status.status == 0)
        #expect(status.stdout.contains("RUNNING LAST KNOWN GOOD"))
        #expect(status.stdout.contains("driftd.toml"))
        #expect(daemon.stderr.contains("config file invalid"))
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(10)) == 0)
    }

    @Test("an invalid config with no last known good copy: exit 1 with the problems", .enabled(if: binaryBuilt, "driftd binary not built"))
    func invalidWithoutFallback() async throws {
        let directory = try TemporaryDirectory(prefix: "bad")
        defer { directory.remove() }
        let configPath = directory.appending("driftd.toml")
        try "[box]\nname = 5\n".write(toFile: configPath, atomically: true, encoding: .utf8)
        let result = try await DriftdProcess.runToCompletion(["run", "--config", configPath, "--data-dir", directory.appending("data")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("box.name"))
    }

    @Test("two daemons cannot share a data directory", .enabled(if: binaryBuilt, "driftd binary not built"))
    func sharedDataDirectoryRefused() async throws {
        let directory = try TemporaryDirectory(prefix: "two")
        defer { directory.remove() }
        let data = directory.appending("data")
        let listener = try NotifySocketListener.abstract()
        let first = try DriftdProcess(arguments: ["run", "--config", "board/sim.toml", "--data-dir", data],
                                      environment: ["NOTIFY_SOCKET": listener.address], stderrPath: directory.appending("1.log"))
        _ = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(30)) }
        let second = try await DriftdProcess.runToCompletion(["run", "--config", "board/sim.toml", "--data-dir", data])
        #expect(second.status != 0)
        #expect(second.stderr.contains("another driftd"))
        first.send(SIGTERM)
        #expect(try await first.waitForExit(timeout: .seconds(10)) == 0)
    }
}

@Suite("driftd commands")
struct CommandTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    @Test("config check: every board passes", .enabled(if: binaryBuilt, "driftd binary not built"),
          arguments: ["sim", "rpi4b", "rpi5", "rpi-zero2w", "x86_64-qemu"])
    func boardsPass(board: String) async throws {
        let result = try await DriftdProcess.runToCompletion(["config", "check", "board/\(board).toml"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test("config check: a wrong type, an unknown key and a missing required key, each with its line",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func threeProblems() async throws {
        let directory = try TemporaryDirectory(prefix: "check")
        defer { directory.remove() }
        var text = try String(contentsOfFile: DriftdProcess.packageRoot + "/board/sim.toml", encoding: .utf8)
        text = text.replacingOccurrences(of: "\ncountry = \"DE\"", with: "\n")
        text = text.replacingOccurrences(of: "hop_limit = 7", with: "hop_limit = \"three\"\nhop_limt = 7")
        let path = directory.appending("driftd.toml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let hopLine = lines.firstIndex { $0.hasPrefix("hop_limit") }! + 1
        let result = try await DriftdProcess.runToCompletion(["config", "check", path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("driftd.toml:\(hopLine): mesh.hop_limit: expected an integer"), "\(result.stdout)")
        #expect(result.stdout.contains("driftd.toml:\(hopLine + 1): mesh.hop_limt: unknown key"), "\(result.stdout)")
        #expect(result.stdout.contains("hop_limit"))
        #expect(result.stdout.contains("box.country: missing required key"), "\(result.stdout)")
        #expect(result.stdout.range(of: #"driftd\.toml:\d+: box\.country"#, options: .regularExpression) != nil)
    }

    @Test("wrong usage exits 2", .enabled(if: binaryBuilt, "driftd binary not built"))
    func usage() async throws {
        #expect(try await DriftdProcess.runToCompletion(["run", "--no-such-flag"]).status == 2)
        #expect(try await DriftdProcess.runToCompletion(["config", "check"]).status == 2)
    }

    @Test("version names the commit and the libgpiod API", .enabled(if: binaryBuilt, "driftd binary not built"))
    func version() async throws {
        let result = try await DriftdProcess.runToCompletion(["version", "--json"])
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""libgpiod":"v1""#))
        #expect(result.stdout.contains(#""commit":""#))
    }

    @Test("status with no daemon running fails cleanly with exit 1", .enabled(if: binaryBuilt, "driftd binary not built"))
    func statusWithoutDaemon() async throws {
        let result = try await DriftdProcess.runToCompletion(["status", "--socket", "/tmp/drift-no-such.sock"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot reach driftd"))
    }
}

@Suite("the simulated world through the control socket")
struct SimulatedWorldTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    @Test("sim.press presses a button (seen in the log); sim.leds shows the heartbeat", .enabled(if: binaryBuilt, "driftd binary not built"))
    func pressAndLEDs() async throws {
        let directory = try TemporaryDirectory(prefix: "sim")
        defer { directory.remove() }
        let data = directory.appending("data")
        let listener = try NotifySocketListener.abstract()
        let daemon = try DriftdProcess(arguments: ["run", "--config", "board/sim.toml", "--data-dir", data],
                                       environment: ["NOTIFY_SOCKET": listener.address], stderrPath: directory.appending("log"))
        _ = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(30)) }
        let socket = data + "/driftd.sock"
        let pressed = try await runBlocking {
            try ControlClient.send(rawLine: #"{"command":"sim.press","arguments":{"button":"presence","ms":"120"}}"#, to: socket, timeoutMilliseconds: 60_000)
        }
        #expect(pressed.contains(#""button":"presence""#), "\(pressed)")
        // The press is logged when the pin goes low, the release 120 ms later.
        #expect(try await eventually(within: .seconds(30), every: .milliseconds(50)) {
            daemon.stderr.range(of: "button released .*button=presence", options: .regularExpression) != nil
        }, "\(daemon.stderr)")
        #expect(daemon.stderr.range(of: "button pressed .*button=presence", options: .regularExpression) != nil, "\(daemon.stderr)")
        var levels = Set<String>()
        for _ in 0..<60 where levels.count < 2 {
            let answer = try await runBlocking { try ControlClient.send(rawLine: #"{"command":"sim.leds"}"#, to: socket, timeoutMilliseconds: 60_000) }
            levels.insert(answer.contains(#""status":true"#) ? "on" : "off")
            try await Task.sleep(for: .milliseconds(30))
        }
        #expect(levels == ["on", "off"])
        let bad = try await runBlocking { try ControlClient.send(rawLine: #"{"command":"sim.press","arguments":{"button":"doorbell"}}"#, to: socket, timeoutMilliseconds: 60_000) }
        #expect(bad.contains("bad_argument"))
        let weather = try await runBlocking { try ControlClient.send(rawLine: #"{"command":"sim.weather","arguments":{"celsius":"30","humidity":"20"}}"#, to: socket, timeoutMilliseconds: 60_000) }
        #expect(weather.contains(#""celsius":30"#) && weather.contains(#""mode":"fixed""#), "\(weather)")
        let unplugged = try await runBlocking { try ControlClient.send(rawLine: #"{"command":"sim.weather","arguments":{"plugged":"false"}}"#, to: socket, timeoutMilliseconds: 60_000) }
        #expect(unplugged.contains(#""plugged":false"#))
        let outOfRange = try await runBlocking { try ControlClient.send(rawLine: #"{"command":"sim.weather","arguments":{"celsius":"900"}}"#, to: socket, timeoutMilliseconds: 60_000) }
        #expect(outOfRange.contains("bad_argument"))

        // The simulated GPS: a fix at the configured position, movable, and able to lose its fix.
        // Each change shows at the GPS's next sentence: once the power saver has settled (a
        // minute in, on a busy machine) that is up to 10 s away, so wait by the clock.
        func status(until shows: String) async throws -> String {
            var last = ""
            let shown = try await MeshBottleProcessTests.eventually(.seconds(30)) { () async throws -> String? in
                last = try await DriftdProcess.runToCompletion(["status", "--data-dir", data]).stdout
                return last.contains(shows) ? last : nil
            }
            return shown ?? last
        }
        var gps = try await status(until: "gps: 3D fix")
        #expect(gps.contains("gps: 3D fix 52.4731"), "\(gps)")
        let moved = try await runBlocking { try ControlClient.send(rawLine: #"{"command":"sim.gps","arguments":{"lat":"48.8584","lon":"2.2945"}}"#, to: socket, timeoutMilliseconds: 60_000) }
        #expect(moved.contains("48.8584"))
        gps = try await status(until: "48.858")
        #expect(gps.contains("gps: 3D fix 48.858"), "\(gps)")
        _ = try await runBlocking { try ControlClient.send(rawLine: #"{"command":"sim.gps","arguments":{"fix":"false"}}"#, to: socket, timeoutMilliseconds: 60_000) }
        gps = try await status(until: "searching")
        #expect(gps.contains("gps: receiver answers, searching for a fix"), "\(gps)")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(10)) == 0)
    }
}

@Suite("driftd selftest as a process")
struct SelftestProcessTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    @Test("sim board: every check passes, exit 0; JSON for scripts", .enabled(if: binaryBuilt, "driftd binary not built"))
    func simBoard() async throws {
        // Its own radio port: other tests' daemons may hold the sim board's default one, and a
        // taken port is (rightly) a radio FAIL.
        let box = try SimBox("selftest")
        defer { box.directory.remove() }
        let text = try await DriftdProcess.runToCompletion(["selftest", "--config", box.config, "--data-dir", box.data])
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("PASS  gpio.chip"))
        #expect(text.stdout.contains("selftest passed"))
        let json = try await DriftdProcess.runToCompletion(["selftest", "--config", box.config, "--data-dir", box.data, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((object?["checks"] as? [[String: Any]])?.isEmpty == false)
    }

    @Test("a real-board profile on this machine fails cleanly, one reason per device, exit 1",
          .enabled(if: binaryBuilt, "driftd binary not built"), arguments: ["rpi4b", "rpi5", "rpi-zero2w", "x86_64-qemu"])
    func realBoard(board: String) async throws {
        let directory = try TemporaryDirectory(prefix: "selftest")
        defer { directory.remove() }
        let result = try await DriftdProcess.runToCompletion(["selftest", "--config", "board/\(board).toml", "--data-dir", directory.path])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("FAIL  gpio.chip"), "\(result.stdout)")
        #expect(result.stdout.contains("selftest FAILED"))
        #expect(!result.stderr.contains("Fatal error"))
    }
}

@Suite("an unplugged sensor on the sim board")
struct UnpluggedSensorTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    @Test("unplugging the simulated BME280 is a sensor fault in status and the status line; replugging clears it",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func unplug() async throws {
        // Its own radio port (SimBox): another test's daemon on the default one would add a
        // radio fault to the status line this test reads.
        let box = try SimBox("unplug")
        let directory = box.directory
        defer { directory.remove() }
        let data = box.data
        let configPath = box.config
        let sim = try String(contentsOfFile: configPath, encoding: .utf8)
        try sim.replacingOccurrences(of: "bme280 = true", with: "bme280 = true\nsample_interval_s = 1")
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        let listener = try NotifySocketListener.abstract()
        let daemon = try DriftdProcess(arguments: ["run", "--config", configPath, "--data-dir", data],
                                       environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "1000000"],
                                       stderrPath: directory.appending("log"))
        _ = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(30)) }
        let socket = data + "/driftd.sock"
        _ = try await runBlocking { try ControlClient.send(rawLine: #"{"command":"sim.weather","arguments":{"plugged":"false"}}"#, to: socket, timeoutMilliseconds: 60_000) }
        var status = ""
        // systemd's status line names the fault too. The notify socket is read while waiting:
        // unread, its queue (10 datagrams) fills with watchdog pings on a slow machine and the
        // daemon gives up sending the one status line that says it.
        var statusLine = ""
        func readNotifications() async throws {
            while let message = try await runBlocking({ try listener.receive(timeout: .milliseconds(20)) }) {
                if message.contains("STATUS="), message.contains("faults: sensors") { statusLine = message }
            }
        }
        for _ in 0..<100 where !status.contains("fault: sensors") {
            try await readNotifications()
            try await Task.sleep(for: .milliseconds(100))
            status = try await DriftdProcess.runToCompletion(["status", "--data-dir", data]).stdout
        }
        #expect(status.contains("fault: sensors: BME280"), "\(status)")
        try await readNotifications()
        for _ in 0..<30 where !statusLine.contains("faults: sensors") {
            if let message = try await runBlocking({ try listener.receive(timeout: .seconds(1)) }), message.contains("STATUS=") {
                statusLine = message
            }
        }
        #expect(statusLine.contains("faults: sensors"), "\(statusLine)")
        _ = try await runBlocking { try ControlClient.send(rawLine: #"{"command":"sim.weather","arguments":{"plugged":"true"}}"#, to: socket, timeoutMilliseconds: 60_000) }
        for _ in 0..<150 where status.contains("fault: sensors") {
            try await Task.sleep(for: .milliseconds(100))
            status = try await DriftdProcess.runToCompletion(["status", "--data-dir", data]).stdout
        }
        #expect(!status.contains("fault: sensors"), "\(status)")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0)
    }
}

/// One simulated box for a process test: its folder, data directory and config (the sim board
/// on its own radio and HTTP ports), and the daemon started on it once it said READY=1.
struct SimBox {
    let directory: TemporaryDirectory
    let httpPort: Int
    var data: String { directory.appending("data") }
    var config: String { directory.appending("driftd.toml") }

    /// `radioPort` `nil`: a free one.
    init(_ prefix: String, radioPort: Int? = nil) throws {
        directory = try TemporaryDirectory(prefix: prefix)
        httpPort = try LoopbackHTTP.freePort()
        let radio = try radioPort ?? LoopbackPorts.take()
        let sim = try String(contentsOfFile: DriftdProcess.checkout + "/board/sim.toml", encoding: .utf8)
        try sim.replacingOccurrences(of: "radio_udp_port = 47300", with: "radio_udp_port = \(radio)")
            .replacingOccurrences(of: "listen = \"127.0.0.1:8080\"", with: "listen = \"127.0.0.1:\(httpPort)\"")
            .write(toFile: config, atomically: true, encoding: .utf8)
    }

    /// Starts `driftd run` on this box and waits for READY=1.
    func start(descriptorLimit: Int? = nil) async throws -> DriftdProcess {
        let listener = try NotifySocketListener.abstract()
        let daemon = try DriftdProcess(arguments: ["run", "--config", config, "--data-dir", data, "--listen", "127.0.0.1:\(httpPort)"],
                                       environment: ["NOTIFY_SOCKET": listener.address], stderrPath: directory.appending("log-\(UUID().uuidString.prefix(6))"),
                                       descriptorLimit: descriptorLimit)
        _ = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(60)) }
        return daemon
    }
}

@Suite("a radio that cannot start")
struct RadioFaultTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    /// The trust review found a sim radio whose UDP port was taken logged an error and nothing
    /// else: no `radio` fault in status, the LED kept its heartbeat, selftest said PASS and
    /// `driftd mesh status` answered "unknown command".
    @Test("its port taken: the radio fault in status, mesh status says why, selftest fails radio",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func portTaken() async throws {
        let taken = try UDPSocket.bind(host: "127.0.0.1", port: 0)
        defer { try? taken.socket.close() }
        let box = try SimBox("radio-fault", radioPort: taken.port)
        defer { box.directory.remove() }
        let (configPath, data) = (box.config, box.data)

        let selftest = try await DriftdProcess.runToCompletion(["selftest", "--config", configPath, "--data-dir", data, "--json"])
        let checks = (try JSONSerialization.jsonObject(with: Data(selftest.stdout.utf8)) as? [String: Any])?["checks"] as? [[String: Any]] ?? []
        let radio = checks.first { $0["name"] as? String == "radio" }
        #expect(radio?["status"] as? String == "FAIL", "\(selftest.stdout)")
        #expect((radio?["detail"] as? String)?.contains("\(taken.port)") == true, "\(String(describing: radio))")

        let daemon = try await box.start()
        let status = try await DriftdProcess.runToCompletion(["status", "--data-dir", data, "--json"])
        let faults = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
            .flatMap { ($0["health"] as? [String: Any])?["faults"] as? [String: String] } ?? [:]
        #expect(faults["radio"]?.contains("\(taken.port)") == true, "\(status.stdout)")
        let mesh = try await DriftdProcess.runToCompletion(["mesh", "status", "--data-dir", data])
        #expect(mesh.status == 0 && mesh.stdout.contains("configured but not running"), "\(mesh)")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(20)) == 0)
    }

    @Test("datagrams the radio drops (no header, an impossible position) are counted in mesh status",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func dropsCounted() async throws {
        let box = try SimBox("radio-drops")
        defer { box.directory.remove() }
        let data = box.data
        let port = try #require(Int(try String(contentsOfFile: box.config, encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("radio_udp_port") }?.split(separator: "=")[1]
            .split(separator: "#")[0].trimmingCharacters(in: .whitespaces) ?? ""))
        let daemon = try await box.start()
        let sender = try UDPSocket.bind(host: "127.0.0.1", port: 0)
        defer { try? sender.socket.close() }
        // No header at all, then a header-sized datagram whose position is NaN.
        try UDPSocket.send(sender.socket, [0x00, 0x01, 0x02], host: "127.0.0.1", port: port)
        let impossible = SimulatedRadioTransmitter(latitude: .nan, longitude: 13.4, txPowerDBm: 14,
                                                   channel: .init(frequencyMHz: 869.525, spreadingFactor: 11, bandwidthHz: 250_000))
        try UDPSocket.send(sender.socket, SimulatedRadioDatagram(sender: impossible, frame: [1, 2, 3]).encoded(), host: "127.0.0.1", port: port)
        // The daemon counts them as they arrive: polled with the process tests' one helper.
        let dropped = try await MeshBottleProcessTests.eventually(.seconds(10)) { () -> Int? in
            let status = try await DriftdProcess.runToCompletion(["mesh", "status", "--data-dir", data, "--json"])
            let count = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["radioMalformed"] as? Int ?? 0
            return count >= 2 ? count : nil
        }
        #expect(dropped == 2)
        let text = try await DriftdProcess.runToCompletion(["mesh", "status", "--data-dir", data])
        #expect(text.stdout.contains("radio: 2 receptions dropped"), "\(text.stdout)")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(20)) == 0)
    }
}

@Suite("out of descriptors")
struct DescriptorExhaustionTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    /// The load review found that with every descriptor taken by slow clients, the control
    /// socket's failed `accept` ended its service, and with it the daemon. Now the visitor
    /// server's door keeps its connections below the descriptor limit (at least 64 held back
    /// for the store, the radio and the control socket), evicts connections that sent no
    /// request when a visitor needs the place, and the control socket still retries `accept`
    /// should descriptors run out some other way.
    @Test("200 slow clients from eight addresses at a daemon with 128 descriptors: descriptors stay free, status and a visitor are answered while they hold on",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func slowClientsCannotTakeEveryDescriptor() async throws {
        let box = try SimBox("descriptors")
        defer { box.directory.remove() }
        let (data, httpPort) = (box.data, box.httpPort)
        let daemon = try await box.start(descriptorLimit: 128)
        defer { daemon.send(SIGKILL) }
        #expect(daemon.stderr.contains("visitor connections capped"), "\(daemon.stderr.suffix(2_000))")
        // More slow clients than the daemon has descriptors, eight phones' worth: each sends
        // half a request line and waits.
        let clients = try await runBlocking { () throws -> [FileDescriptor] in
            (0..<200).compactMap { index in
                guard let socket = try? TCPSocket.connect(host: "127.0.0.1", port: httpPort, from: "127.0.0.\(2 + index % 8)",
                                                          timeoutMilliseconds: 2_000) else { return nil }
                try? UnixSocket.sendAll(socket, Array("GET /api/v1/bottles HTTP/1.1\r\n".utf8))
                return socket
            }
        }
        defer { clients.forEach { try? $0.close() } }
        #expect(clients.count > 150, "only \(clients.count) connections")
        // While they hold on: the control socket and a visitor who asks are served.
        let status = try await DriftdProcess.runToCompletion(["status", "--data-dir", data])
        #expect(status.status == 0, "\(status.stdout) \(status.stderr) \(daemon.stderr.suffix(2_000))")
        let visitor = try await LoopbackHTTP(port: httpPort).send("GET", "/api/v1/openapi.json")
        #expect(visitor.status == 200, "\(visitor)")
        let held = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd").count) ?? 0
        #expect(held < 128, "the daemon holds \(held) descriptors of 128")
        #expect(daemon.isRunning, "the daemon stopped: \(daemon.stderr.suffix(2_000))")
        #expect(!daemon.stderr.contains("Fatal error"))
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(30)) == 0)
    }
}
