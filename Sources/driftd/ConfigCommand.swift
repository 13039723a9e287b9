import ArgumentParser
import DriftConfig

/// `driftd config …`: configuration tools.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check configuration files.",
        subcommands: [Check.self]
    )

    /// `driftd config check FILE`: prints every problem; exit 1 if there is any.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Validate a driftd.toml (merged over its board profile) and print every problem with its line.")

        @Argument(help: "The config file to check.")
        var file: String

        @Flag(name: .long, help: "Print the report as JSON.")
        var json = false

        func run() throws {
            let report = ConfigReport.check(path: file)
            print(json ? report.renderJSON() : report.renderText(), terminator: "")
            if report.exitCode != 0 { throw ExitCode(report.exitCode) }
        }
    }
}
