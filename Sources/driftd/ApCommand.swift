import ArgumentParser
import DriftConfig
import DriftDaemon
import Foundation

/// `driftd ap …`: the visitor Wi-Fi access point.
struct ApCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ap",
        abstract: "The visitor Wi-Fi access point (hostapd, dnsmasq, systemd-networkd).",
        subcommands: [Render.self]
    )

    /// `driftd ap render`: writes hostapd.conf, dnsmasq.conf and driftbox-ap.network.
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render hostapd.conf, dnsmasq.conf and driftbox-ap.network from [access_point].",
            discussion: "With access_point.enabled = false nothing is written and earlier files are removed (exit 0). With --skip-without-interface, the same when the interface does not exist, so the units conditioned on the files skip cleanly."
        )

        @Option(name: .long, help: "The config file (default: the embedded simulated board).")
        var config: String?

        @Option(name: .long, help: "Data directory holding the last known good config; overrides storage.data_dir.")
        var dataDir: String?

        @Option(name: .long, help: "Directory to write the files to (on the box /run/driftbox/ap).")
        var out: String

        @Flag(name: .long, help: "Render nothing (exit 0) when the interface does not exist on this machine.")
        var skipWithoutInterface = false

        func run() throws {
            let configuration = try ConfigLoading.load(config: config, dataDir: dataDir)
            let renderer = AccessPointRenderer(directory: out)
            do throws(AccessPointRenderer.Failure) {
                switch try renderer.render(config: configuration, source: config ?? DriftConfiguration.embeddedDefaultName,
                                           requireInterface: skipWithoutInterface) {
                case .rendered(let paths):
                    let ap = configuration.accessPoint
                    print("access point \"\(configuration.accessPointSSID)\" on \(ap.interface) at \(ap.address) (\(ap.passphrase.isEmpty ? "open" : "WPA2")):")
                    for path in paths { print("  \(path)") }
                case .disabled:
                    print("access point disabled (access_point.enabled = false): nothing rendered")
                case .beaconProfile:
                    print("no access point in the beacon power profile (power.profile = \"beacon\"): nothing rendered")
                case .noInterface(let name):
                    print("no interface \(name) on this machine: nothing rendered")
                }
            } catch {
                FileHandle.standardError.write(Data("ap render: \(error.description)\n".utf8))
                throw ExitCode.failure
            }
        }
    }
}
