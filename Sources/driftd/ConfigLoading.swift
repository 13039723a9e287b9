import ArgumentParser
import DriftConfig
import Foundation

/// Loading the configuration for the boot-time tools (`identity init`, `ap render`) the way
/// the daemon does: the file, or its last known good copy when the file is invalid.
enum ConfigLoading {
    /// The configuration with `--data-dir` applied; prints the problems and exits 1 when
    /// neither the file nor a last known good copy can be used.
    static func load(config path: String?, dataDir: String?) throws -> DriftConfiguration {
        var configuration: DriftConfiguration
        if let path {
            do {
                switch try ConfigLoader.loadWithFallback(path: path, dataDirectory: dataDir) {
                case .primary(let loaded, _):
                    configuration = loaded.configuration
                case .lastKnownGood(let loaded, let problem):
                    FileHandle.standardError.write(Data(("\(path) is invalid; using the last known good copy:\n"
                        + problem.issues.map { "  \($0)\n" }.joined()).utf8))
                    configuration = loaded.configuration
                }
            } catch {
                FileHandle.standardError.write(Data(("\(path) is invalid and there is no last known good copy:\n"
                    + error.issues.map { "  \($0)\n" }.joined()).utf8))
                throw ExitCode.failure
            }
        } else {
            configuration = ConfigLoader.loadEmbeddedDefault().configuration
        }
        return try configuration.applying(dataDirectory: dataDir)
    }
}
