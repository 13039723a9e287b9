import ArgumentParser

@main
struct Driftd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "driftd", abstract: "The Drift Box daemon.")
    func run() async throws {}
}
