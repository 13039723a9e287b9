import ArgumentParser
import CGPIOD
import Foundation

/// What this binary is.
enum BuildInfo {
    static let version = GeneratedBuildInfo.version
    static let commit = GeneratedBuildInfo.commit
    static let buildDate = GeneratedBuildInfo.buildDate
    /// The libgpiod API (1 or 2) the GPIO shim was compiled against.
    static var gpiodAPI: Int { Int(dgpio_api_version()) }
    static var versionLine: String { "\(version) (\(commit))" }
}

/// `driftd version`.
struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the version, git commit, build date and libgpiod API.")

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func run() throws {
        if json {
            let object: [String: String] = [
                "version": BuildInfo.version, "commit": BuildInfo.commit,
                "buildDate": BuildInfo.buildDate, "libgpiod": "v\(BuildInfo.gpiodAPI)",
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("driftd \(BuildInfo.version) commit \(BuildInfo.commit) built \(BuildInfo.buildDate) libgpiod v\(BuildInfo.gpiodAPI)")
        }
    }
}
