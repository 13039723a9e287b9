/// A configuration that loaded without issues, and where it came from.
public struct LoadedConfiguration: Sendable, Equatable {
    public var configuration: DriftConfiguration
    /// The files read, in merge order: the board profile (if any), then the config file.
    public var files: [String]
    /// The board profile used as the base, if one was found.
    public var boardProfile: String?
    /// The merged configuration as TOML text (what `LastKnownGood` saves); loads to the same configuration.
    public var effectiveText: String

    public init(configuration: DriftConfiguration, files: [String], boardProfile: String?, effectiveText: String) {
        self.configuration = configuration
        self.files = files
        self.boardProfile = boardProfile
        self.effectiveText = effectiveText
    }
}

/// What ``ConfigLoader/loadWithFallback(path:dataDirectory:)`` ended up running.
public enum ConfigLoadOutcome: Sendable, Equatable {
    /// The config file is valid. It was saved as the last known good copy unless `saveProblem` says why not.
    case primary(LoadedConfiguration, saveProblem: LastKnownGoodError?)
    /// The config file is invalid (`problem` lists why); the last known good copy runs instead.
    /// Show `problem` loudly: logs and LEDs.
    case lastKnownGood(LoadedConfiguration, problem: ConfigError)

    public var loaded: LoadedConfiguration {
        switch self {
        case .primary(let loaded, _), .lastKnownGood(let loaded, _): loaded
        }
    }

    public var configuration: DriftConfiguration { loaded.configuration }
}
