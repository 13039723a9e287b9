import ArgumentParser
import DriftConfig
import DriftDaemon
import Foundation
import Logging

/// `driftd selftest`: checks every configured device and the store.
struct SelftestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "Check every configured device and the store; one PASS/FAIL/SKIP line each.",
        discussion: "Stop the daemon first: it holds the GPIO lines and serial ports. Exit 1 if any check fails."
    )

    @Option(name: .long, help: "The config file (default: the embedded simulated board).")
    var config: String?

    @Option(name: .long, help: "Data directory to check; overrides storage.data_dir.")
    var dataDir: String?

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = JournalLogHandler(label: label)
            handler.logLevel = .warning
            return handler
        }
        var problems: [String] = []
        var configuration: DriftConfiguration
        if let config {
            do {
                switch try ConfigLoader.loadWithFallback(path: config, dataDirectory: dataDir) {
                case .primary(let loaded, _):
                    configuration = loaded.configuration
                case .lastKnownGood(let loaded, let problem):
                    configuration = loaded.configuration
                    problems = problem.issues.map(\.description)
                }
            } catch {
                print(json ? ConfigReport.json(issues: error.issues) : "FAIL  config  \(config) is invalid and there is no last known good copy:\n" + error.issues.map { "  \($0)" }.joined(separator: "\n"))
                throw ExitCode.failure
            }
        } else {
            configuration = ConfigLoader.loadEmbeddedDefault().configuration
        }
        configuration = try configuration.applying(dataDirectory: dataDir)
        let report = await Selftest(config: configuration, configProblems: problems, environment: ProcessInfo.processInfo.environment).run()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.renderText(), terminator: "")
        }
        if !report.passed { throw ExitCode.failure }
    }
}
