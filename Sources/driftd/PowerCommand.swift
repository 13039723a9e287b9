import ArgumentParser
import DriftConfig
import DriftDaemon
import Foundation

/// `driftd power …`: the power profile (docs/power.md).
struct PowerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "power",
        abstract: "The power profile: what the box switches off (docs/power.md).",
        subcommands: [Plan.self]
    )

    /// `driftd power plan`: what the system switches off for the configured profile.
    struct Plan: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the power profile and what it switches off, as key=value lines (profile, hdmi, activity_led, wifi, access_point).",
            discussion: "Read by the image's driftbox-power.service at boot. Writes nothing: an invalid file falls back to the last known good copy in --data-dir (read only), else the default profile, with exit status 1."
        )

        @Option(name: .long, help: "The config file (default: the embedded simulated board).")
        var config: String?

        @Option(name: .long, help: "Data directory holding the last known good config (read only).")
        var dataDir: String?

        @Flag(name: .long, help: "Print the plan as JSON.")
        var json = false

        func run() throws {
            var failed = false
            let configuration: DriftConfiguration
            if let config {
                do {
                    configuration = try ConfigLoader().load(path: config).configuration
                } catch {
                    failed = true
                    FileHandle.standardError.write(Data(("\(config) is invalid:\n" + error.issues.map { "  \($0)\n" }.joined()).utf8))
                    if let dataDir, let saved = try? LastKnownGood(directory: dataDir).load() {
                        FileHandle.standardError.write(Data("using the last known good copy\n".utf8))
                        configuration = saved.configuration
                    } else {
                        FileHandle.standardError.write(Data("no last known good copy: the default profile\n".utf8))
                        configuration = ConfigLoader.loadEmbeddedDefault().configuration
                    }
                }
            } else {
                configuration = ConfigLoader.loadEmbeddedDefault().configuration
            }
            let plan = PowerPlan(config: configuration)
            if json {
                let object: [String: Any] = [
                    "profile": plan.profile.rawValue, "hdmi": plan.hdmi, "activityLED": plan.activityLED,
                    "wifi": plan.wifi, "accessPoint": plan.accessPoint,
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(plan.renderShell(), terminator: "")
            }
            if failed { throw ExitCode.failure }
        }
    }
}
