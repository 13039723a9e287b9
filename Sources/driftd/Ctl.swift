import ArgumentParser
import DriftDaemon
import Foundation

/// `driftd ctl …`: drives the simulated world of a running daemon through its control
/// socket — press and hold buttons, set the weather, move the GPS, read the LEDs. The
/// `sim.*` commands exist only on the simulated board; a real box answers that they are
/// unknown.
struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive the simulated board of a running daemon (buttons, weather, GPS, LEDs).",
        subcommands: [Press.self, Hold.self, Weather.self, GPS.self, LEDs.self, Send.self, CampCommand.self]
    )

    struct Press: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Press a button briefly (default 150 ms).")
        @Argument(help: "presence or keep-alive") var button: String
        @Option(name: .long, help: "How long to hold it down, milliseconds (1–60000).") var ms = 150
        @OptionGroup var target: ControlTarget
        func run() throws {
            try target.send("sim.press", ["button": button, "ms": "\(ms)"]) { _ in "pressed \(button) for \(ms) ms" }
        }
    }

    struct Hold: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hold a button down (a long press), then release it.")
        @Argument(help: "presence or keep-alive") var button: String
        @Option(name: .long, help: "How long to hold it, seconds (default 3, a long press).") var seconds = 3.0
        @OptionGroup var target: ControlTarget
        func run() throws {
            guard seconds > 0, seconds <= 60 else { throw ValidationError("--seconds must be more than 0 and at most 60") }
            let ms = Int((seconds * 1000).rounded())
            try target.send("sim.press", ["button": button, "ms": "\(ms)"]) { _ in "held \(button) for \(seconds) s" }
        }
    }

    struct Weather: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set the simulated weather (missing values keep the current ones).")
        @Option(name: .long, help: "Temperature, °C (−40…85).") var celsius: Double?
        @Option(name: .long, help: "Pressure, hPa (300…1100).") var hpa: Double?
        @Option(name: .long, help: "Relative humidity, % (0…100).") var humidity: Double?
        @Flag(name: .long, help: "Return to the simulated daily cycle.") var cycle = false
        @Option(name: .long, help: "Plug (true) or unplug (false) the simulated sensor.") var plugged: Bool?
        @OptionGroup var target: ControlTarget
        func run() throws {
            var arguments: [String: String] = [:]
            if let celsius { arguments["celsius"] = "\(celsius)" }
            if let hpa { arguments["hpa"] = "\(hpa)" }
            if let humidity { arguments["humidity"] = "\(humidity)" }
            if cycle { arguments["mode"] = "cycle" }
            if let plugged { arguments["plugged"] = "\(plugged)" }
            try target.send("sim.weather", arguments) { result in
                guard let weather = result as? [String: Any] else { return "\(result)" }
                let c = weather["celsius"] as? Double ?? .nan, p = weather["hectopascals"] as? Double ?? .nan
                let h = weather["relativeHumidity"] as? Double ?? .nan
                return String(format: "%.1f °C, %.1f hPa, %.0f %% (%@%@)", c, p, h, weather["mode"] as? String ?? "?",
                              (weather["plugged"] as? Bool ?? true) ? "" : ", sensor unplugged")
            }
        }
    }

    struct GPS: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move the simulated GPS receiver, or make it lose or regain its fix.")
        @Option(name: .long, help: "Latitude, degrees.") var lat: Double?
        @Option(name: .long, help: "Longitude, degrees.") var lon: Double?
        @Option(name: .long, help: "Altitude, metres.") var alt: Double?
        @Option(name: .long, help: "Whether it has a fix (true/false).") var fix: Bool?
        @OptionGroup var target: ControlTarget
        func run() throws {
            var arguments: [String: String] = [:]
            if let lat { arguments["lat"] = "\(lat)" }
            if let lon { arguments["lon"] = "\(lon)" }
            if let alt { arguments["alt"] = "\(alt)" }
            if let fix { arguments["fix"] = "\(fix)" }
            try target.send("sim.gps", arguments) { result in
                guard let gps = result as? [String: Any] else { return "\(result)" }
                return String(format: "%.6f, %.6f, %.0f m, %@", gps["latitude"] as? Double ?? .nan, gps["longitude"] as? Double ?? .nan,
                              gps["altitude"] as? Double ?? .nan, (gps["hasFix"] as? Bool ?? false) ? "fix" : "no fix")
            }
        }
    }

    struct LEDs: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "leds", abstract: "Read the level of every LED line (on/off, now).")
        @OptionGroup var target: ControlTarget
        func run() throws {
            try target.send("sim.leds", [:]) { result in
                guard let lines = (result as? [String: Any])?["lines"] as? [String: Bool] else { return "\(result)" }
                return lines.keys.sorted().map { "\($0): \(lines[$0]! ? "on" : "off")" }.joined(separator: "\n")
            }
        }
    }

    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send any control command: COMMAND [key=value …].")
        @Argument(help: "The command, e.g. status or sim.press.") var command: String
        @Argument(help: "Arguments as key=value.") var arguments: [String] = []
        @OptionGroup var target: ControlTarget
        func run() throws {
            var parsed: [String: String] = [:]
            for argument in arguments {
                guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                    throw ValidationError("'\(argument)' is not key=value")
                }
                parsed[String(argument[..<equals])] = String(argument[argument.index(after: equals)...])
            }
            var target = target
            target.json = true
            try target.send(command, parsed) { "\($0)" }
        }
    }
}

/// Where to reach the running daemon (`driftd status`, `driftd ctl …`), and `--json`.
struct ControlTarget: ParsableArguments {
    @Option(name: .long, help: "The control socket (default: <data-dir>/driftd.sock).")
    var socket: String?
    @Option(name: .long, help: "The daemon's data directory, to find its control socket.")
    var dataDir: String?
    @Option(name: .long, help: "The daemon's config file, to find its control socket.")
    var config: String?
    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    /// Sends `command` and prints the answer; exit 1 with the daemon's message on refusal.
    func send(_ command: String, _ arguments: [String: String], describe: (Any) -> String) throws {
        let path = try ControlSocketLocation.resolve(socket: socket, dataDir: dataDir, config: config)
        let answer: Data
        do {
            answer = try ControlClient.send(ControlRequest(command: command, arguments: arguments), to: path)
        } catch {
            FileHandle.standardError.write(Data("driftd ctl: \(error)\n".utf8))
            throw ExitCode.failure
        }
        guard let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any] else {
            FileHandle.standardError.write(Data("driftd ctl: unexpected answer: \(String(decoding: answer, as: UTF8.self))\n".utf8))
            throw ExitCode.failure
        }
        if let error = object["error"] as? [String: Any] {
            let code = error["code"] as? String ?? "failed"
            let message = error["message"] as? String ?? ""
            FileHandle.standardError.write(Data("driftd ctl: \(message) (\(code))\n".utf8))
            if code == "unknown_command", command.hasPrefix("sim.") {
                FileHandle.standardError.write(Data("driftd ctl: this daemon is not running the simulated board\n".utf8))
            }
            throw ExitCode.failure
        }
        let result = object["result"] ?? NSNull()
        if json {
            let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .fragmentsAllowed])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(describe(result))
        }
    }
}
