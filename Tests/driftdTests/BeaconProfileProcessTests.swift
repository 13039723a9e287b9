import DriftSystem
import Foundation
import GNSS
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `driftd run` in the beacon power profile (docs/power.md), as a child process: it becomes
/// ready with no TCP listener at all, `driftd status` says which profile runs, and once the
/// receiver on its GPS port (a pseudo-terminal the test plays) has given a stable position,
/// the sleep command arrives on that port. Every wait is for an event (READY=1 on the
/// notify socket, bytes on the pty), none for time.
extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self.suffix(suffix.count)) == suffix }
}

@Suite("Beacon profile: driftd process")
struct BeaconProfileProcessTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    /// Inodes of the TCP sockets in LISTEN state (`/proc/net/tcp`, `tcp6`).
    static func listeningInodes() -> Set<String> {
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count > 9, fields[3] == "0A" { inodes.insert(String(fields[9])) }
            }
        }
        return inodes
    }

    /// Inodes of the sockets process `pid` holds.
    static func socketInodes(of pid: pid_t) -> Set<String> {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(names.compactMap { name -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name),
                  target.hasPrefix("socket:[") else { return nil }
            return String(target.dropFirst("socket:[".count).dropLast())
        })
    }

    /// GGA and RMC of a 3D fix at Tempelhofer Feld (52°28.386' N, 13°24.114' E) at `date`.
    static func fix(at date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let time = String(format: "%02d%02d%02d.00", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
        let day = String(format: "%02d%02d%02d", c.day ?? 1, c.month ?? 1, (c.year ?? 2000) % 100)
        func wrap(_ body: String) -> String {
            "$\(body)*\(String(format: "%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 }))\r\n"
        }
        return wrap("GPGGA,\(time),5228.3860,N,01324.1140,E,1,08,0.9,44.0,M,46.9,M,,")
            + wrap("GPRMC,\(time),A,5228.3860,N,01324.1140,E,0.0,0.0,\(day),,,A")
    }

    @Test("the beacon profile starts with no TCP listener, says so in status, and puts the GPS on its pty to sleep",
          .enabled(if: binaryBuilt, "driftd binary not built"), .timeLimit(.minutes(3)))
    func beaconProcess() async throws {
        let directory = try TemporaryDirectory(prefix: "beacon")
        defer { directory.remove() }
        let pty = try PseudoTerminalPair()
        let ports = try LoopbackPorts.take(2)
        var text = try String(contentsOfFile: DriftdProcess.packageRoot + "/board/sim.toml", encoding: .utf8)
        for (old, new) in [
            ("profile = \"default\"", "profile = \"beacon\""),
            ("gps_receiver = \"auto\"", "gps_receiver = \"mediatek\""),
            ("listen = \"127.0.0.1:8080\"", "listen = \"127.0.0.1:\(ports[0])\""),
            ("radio_udp_port = 47300", "radio_udp_port = \(ports[1])"),
            ("kind = \"sim\"\nport = \"sim\"\nbaud = 0", "kind = \"nmea\"\nport = \"\(pty.slavePath)\"\nbaud = 9600\nset_clock = false"),
        ] {
            try #require(text.contains(old), "sim.toml lacks \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        let config = directory.appending("driftd.toml")
        let data = directory.appending("data")
        try text.write(toFile: config, atomically: true, encoding: .utf8)

        let listener = try NotifySocketListener.abstract()
        let process = try DriftdProcess(arguments: ["run", "--config", config, "--data-dir", data],
                                        environment: ["NOTIFY_SOCKET": listener.address], stderrPath: directory.appending("driftd.log"))
        defer { process.send(SIGKILL) }
        _ = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(60)) }

        // No HTTP server: not one of its sockets listens for TCP.
        let listening = Self.socketInodes(of: process.pid).intersection(Self.listeningInodes())
        #expect(listening.isEmpty, "driftd listens on TCP socket inodes \(listening)")
        #expect(throws: (any Error).self, "nothing answers on the configured http.listen") {
            let socket = try TCPSocket.connect(host: "127.0.0.1", port: ports[0], timeoutMilliseconds: 1_000)
            try? socket.close()
        }

        // `driftd status` says which profile runs.
        let json = try await DriftdProcess.runToCompletion(["status", "--data-dir", data, "--json"])
        try #require(json.status == 0, "\(json)")
        let status = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(status["powerProfile"] as? String == "beacon", "\(json.stdout.prefix(400))")
        let plain = try await DriftdProcess.runToCompletion(["status", "--data-dir", data])
        #expect(plain.stdout.contains("power: beacon profile"), "\(plain.stdout)")

        // The receiver gives 40 fixes; once the stable position stands, PMTK161 arrives on its port.
        // (Bytes written before driftd opened the port may be flushed by the open: the receiver
        // talks again, with later times, until the answer comes — at most 12 rounds.)
        let marker = Array("$PMTK161,0*28\r\n".utf8)
        var received: [UInt8] = []
        for round in 0..<12 where !received.ends(with: marker) {
            let start = Date() + Double(round * 40)
            try pty.write((0..<40).flatMap { Array(Self.fix(at: start + Double($0)).utf8) })
            received += try await pty.read(until: marker, timeout: .seconds(5))
        }
        #expect(received.ends(with: marker), "\(process.stderr.suffix(2_000))")

        let asleep = try await DriftdProcess.runToCompletion(["status", "--data-dir", data, "--json"])
        let gps = try #require((try JSONSerialization.jsonObject(with: Data(asleep.stdout.utf8)) as? [String: Any])?["gps"] as? [String: Any])
        #expect((gps["power"] as? [String: Any])?["phase"] as? String == "asleep", "\(gps)")

        process.send(SIGTERM)
        #expect(try await process.waitForExit(timeout: .seconds(30)) == 0, "\(process.stderr.suffix(2_000))")
    }

    @Test("`driftd power plan` says what the beacon profile switches off; `config check` names the profile",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func plan() async throws {
        let directory = try TemporaryDirectory(prefix: "beacon-plan")
        defer { directory.remove() }
        let board = try String(contentsOfFile: DriftdProcess.packageRoot + "/board/sim.toml", encoding: .utf8)
        let config = directory.appending("driftd.toml")
        try board.replacingOccurrences(of: "profile = \"default\"", with: "profile = \"beacon\"").write(toFile: config, atomically: true, encoding: .utf8)
        let plan = try await DriftdProcess.runToCompletion(["power", "plan", "--config", config])
        #expect(plan.status == 0)
        #expect(plan.stdout == "profile=beacon\nhdmi=off\nactivity_led=off\nwifi=off\naccess_point=off\n", "\(plan)")
        let check = try await DriftdProcess.runToCompletion(["config", "check", config])
        #expect(check.status == 0 && check.stdout.contains("power profile beacon"), "\(check)")

        let defaults = try await DriftdProcess.runToCompletion(["power", "plan", "--config", DriftdProcess.packageRoot + "/board/sim.toml"])
        #expect(defaults.stdout.hasPrefix("profile=default\nhdmi=on\n"), "\(defaults)")
    }

    @Test("the image's power-profile script turns HDMI, the ACT LED and Wi-Fi off in a scratch /sys for the beacon profile only",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func powerProfileScript() async throws {
        let directory = try TemporaryDirectory(prefix: "beacon-sysfs")
        defer { directory.remove() }
        let sys = directory.appending("sys")
        let files = [
            "class/drm/card0-HDMI-A-1/status": "connected\n", "class/leds/ACT/trigger": "mmc0\n", "class/leds/ACT/brightness": "255\n",
            "class/rfkill/rfkill0/type": "wlan\n", "class/rfkill/rfkill0/soft": "0\n", "class/rfkill/rfkill0/name": "phy0\n",
            "class/rfkill/rfkill1/type": "bluetooth\n", "class/rfkill/rfkill1/soft": "0\n",
        ]
        func reset() throws {
            for (path, content) in files {
                let full = sys + "/" + path
                try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try content.write(toFile: full, atomically: false, encoding: .utf8)
            }
        }
        func read(_ path: String) throws -> String { try String(contentsOfFile: sys + "/" + path, encoding: .utf8) }
        let board = try String(contentsOfFile: DriftdProcess.packageRoot + "/board/sim.toml", encoding: .utf8)
        let script = DriftdProcess.packageRoot + "/image/overlay/usr/lib/driftbox/power-profile"
        let driftd = try #require(DriftdProcess.binaryPath)
        for profile in ["default", "beacon"] {
            try reset()
            let config = directory.appending("\(profile).toml")
            try board.replacingOccurrences(of: "profile = \"default\"", with: "profile = \"\(profile)\"").write(toFile: config, atomically: true, encoding: .utf8)
            let result = try await CapturedRun.run("/bin/sh", [script], environment: [
                "DRIFTBOX_SYSFS": sys, "DRIFTBOX_DRIFTD": driftd, "DRIFTBOX_CONFIG": config, "PATH": "/usr/bin:/bin",
            ])
            #expect(result.status == 0, "\(result)")
            let beacon = profile == "beacon"
            #expect(try read("class/drm/card0-HDMI-A-1/status") == (beacon ? "off\n" : "connected\n"), "\(profile): \(result)")
            #expect(try read("class/leds/ACT/brightness") == (beacon ? "0\n" : "255\n"))
            #expect(try read("class/rfkill/rfkill0/soft") == (beacon ? "1\n" : "0\n"))
            #expect(try read("class/rfkill/rfkill1/soft") == "0\n", "Bluetooth is left alone")
        }
    }
}
