import ArgumentParser
import DriftDaemon
import DriftSystem
import Foundation
import Logging

/// `driftd run`: runs the daemon until SIGTERM or SIGINT.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the daemon (under systemd, or in a terminal).",
        discussion: "Without --config the embedded simulated-board default runs. --data-dir and --listen override the config file, so several boxes can run side by side."
    )

    @Option(name: .long, help: "The config file (on the appliance /config/driftd.toml).")
    var config: String?

    @Option(name: .long, help: "Data directory (database, media, control socket); overrides storage.data_dir.")
    var dataDir: String?

    @Option(name: .long, help: "HOST:PORT for the visitor page; overrides http.listen.")
    var listen: String?

    func run() async throws {
        // Nothing the daemon writes is for group or others (docs/installing.md); files in the
        // data directory get explicit owner-only modes as well.
        OwnerOnlyFiles.restrictUmask()
        let environment = ProcessInfo.processInfo.environment
        LoggingSystem.bootstrap { label in JournalLogHandler(label: label, level: .trace, environment: environment) }
        let logger = Logger(label: "driftd")
        // A peer that hangs up must surface as EPIPE on that connection, not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        do {
            try await Daemon.run(
                options: DaemonOptions(configPath: config, dataDirectory: dataDir, listen: listen, environment: environment, version: BuildInfo.versionLine,
                                       gpsTimeFloor: GPSTimeSource.floor(buildDate: BuildInfo.buildDate)),
                logger: logger
            )
        } catch let error as DaemonStartupError {
            logger.critical("cannot start: \(error.description)")
            throw ExitCode.failure
        }
    }
}
