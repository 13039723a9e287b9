/// Where a key of the merged configuration was written: file and line.
struct ConfigOrigin: Sendable, Equatable {
    var file: String
    var line: Int?
}

/// Key path → origin for a merged configuration (profile first, then the file's keys on top).
struct ConfigOrigins: Sendable {
    private var origins: [String: ConfigOrigin] = [:]

    init() {}

    /// Adds every key path of `parsed`, replacing origins of paths it also defines.
    mutating func overlay(_ parsed: ParsedConfigFile) {
        for path in TOMLNode.keyPaths(of: parsed.root) {
            origins[path] = ConfigOrigin(file: parsed.file, line: parsed.lines[path])
        }
    }

    subscript(path: String) -> ConfigOrigin? {
        origins[path]
    }
}
