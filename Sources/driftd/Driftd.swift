import ArgumentParser
import CGPIOD

@main
struct Driftd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "driftd", abstract: "The Drift Box daemon.", subcommands: [Version.self, Bench.self])
}

struct Version: ParsableCommand {
    func run() throws {
        print("driftd \(GeneratedBuildInfo.version) commit \(GeneratedBuildInfo.commit) built \(GeneratedBuildInfo.buildDate) libgpiod v\(dgpio_api_version())")
    }
}
