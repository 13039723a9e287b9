import ArgumentParser
import DriftConfig
import DriftDaemon
import DriftSystem
import Foundation
import Logging

/// `driftd identity …`: the box's identity on the data partition.
struct IdentityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "The box's identity (box id, secret, mesh key) on the data partition.",
        subcommands: [Init.self]
    )

    /// `driftd identity init`: first boot; idempotent.
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the box's identity once: data directory, migrated store, box id and secret, mesh key; prints the box id.",
            discussion: "Idempotent: a second run finds everything, prints the same id and changes nothing. Writes <data-dir>/.identity last (driftbox-firstboot.service runs while it is absent)."
        )

        @Option(name: .long, help: "The config file (default: the embedded simulated board).")
        var config: String?

        @Option(name: .long, help: "Data directory; overrides storage.data_dir.")
        var dataDir: String?

        @Flag(name: .long, help: "Print the result as JSON.")
        var json = false

        func run() throws {
            OwnerOnlyFiles.restrictUmask()  // as `driftd run`: nothing here is for group or others
            let environment = ProcessInfo.processInfo.environment
            LoggingSystem.bootstrap { label in
                var handler = JournalLogHandler(label: label, environment: environment)
                handler.logLevel = .notice
                return handler
            }
            let configuration = try ConfigLoading.load(config: config, dataDir: dataDir)
            let report: IdentityInit.Report
            do throws(IdentityInit.Failure) {
                report = try IdentityInit.run(config: configuration, dataDirectory: configuration.storage.dataDir,
                                              logger: Logger(label: "driftd.identity"))
            } catch {
                FileHandle.standardError.write(Data("identity init: \(error.description)\n".utf8))
                throw ExitCode.failure
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                print(report.boxID)
            }
        }
    }
}
