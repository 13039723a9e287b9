import ArgumentParser
import Foundation

/// `driftd`: the Drift Box daemon and its tools.
///
/// Exit codes follow the box's convention: 0 success, 1 a failed check or a
/// failure at run time, 2 wrong usage.
@main
struct Driftd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "driftd",
        abstract: "The Drift Box daemon: drift bottles on a box of buttons, LEDs, GPS, LoRa and weather sensors.",
        subcommands: [Run.self, ConfigCommand.self, Status.self, Ctl.self, SelftestCommand.self, Nmea.self, Version.self, Bench.self, MeshCommand.self, SimCommand.self, IdentityCommand.self, ApCommand.self, PowerCommand.self, E22ModuleCommand.self]
    )

    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                // ArgumentParser uses EX_USAGE (64); the box's convention is 2 for wrong usage.
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
