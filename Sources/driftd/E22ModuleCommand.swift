import ArgumentParser
import DriftConfig
import DriftDaemon
import Foundation
import Logging

/// `driftd e22 program`: sets up the box's E22 module from the configuration.
struct E22ModuleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "e22",
        abstract: "The box's E22 LoRa module.",
        subcommands: [Program.self])

    /// `driftd e22 program [--config FILE] [--check] [--answer-timeout S]`.
    struct Program: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "program",
            abstract: "Write the registers the config names to the E22 and read them back.",
            discussion: """
                For a module whose M0/M1 are strapped (e22.m0 = e22.m1 = ""), which the daemon cannot configure: \
                stop driftd, set the jumpers to configuration mode (M0 low, M1 high), run this, set them back to \
                normal mode (M0 and M1 low), start driftd. With the mode lines wired the daemon programs the module \
                at every start; this works there too. Exit 1 when the module does not answer or read back as written.
                """)

        @Option(name: .long, help: "The config file (default: the embedded simulated board, which has no E22).")
        var config: String?

        @Flag(name: .long, help: "Only read the registers and compare them with the config; write nothing.")
        var check = false

        @Option(name: .long, help: "Seconds the module may take to answer each command (a slow USB-serial adapter may need more).")
        var answerTimeout: Double = 1

        func validate() throws {
            guard answerTimeout > 0, answerTimeout <= 60 else { throw ValidationError("--answer-timeout must be above 0 and at most 60 seconds") }
        }

        func run() async throws {
            LoggingSystem.bootstrap { label in
                var handler = JournalLogHandler(label: label)
                handler.logLevel = .warning
                return handler
            }
            let configuration = try ConfigLoading.load(config: config, dataDir: nil)
            do {
                let report = try await E22Programming.run(config: configuration, write: !check,
                                                          answerTimeout: .milliseconds(Int(answerTimeout * 1_000)))
                print(report.renderText(), terminator: "")
                if check, !report.heldAlready { throw ExitCode.failure }
            } catch let failure as E22Programming.Failure {
                FileHandle.standardError.write(Data("\(failure)\n".utf8))
                throw ExitCode.failure
            }
        }
    }
}
