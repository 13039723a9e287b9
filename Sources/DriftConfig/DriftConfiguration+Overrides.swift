extension DriftConfiguration {
    /// The configuration with the command-line overrides applied (`--data-dir`, `--listen`).
    ///
    /// `nil` leaves a value as configured. Issues name the file `command line`.
    public func applying(dataDirectory: String? = nil, listen: String? = nil) throws(ConfigError) -> DriftConfiguration {
        var copy = self
        var issues: [ConfigIssue] = []
        if let dataDirectory {
            if let problem = ConfigChecks.path(dataDirectory) {
                issues.append(ConfigIssue(file: "command line", key: "storage.data_dir", kind: .invalidValue,
                                          message: "--data-dir \(problem.message)"))
            } else {
                copy.storage.dataDir = dataDirectory
            }
        }
        if let listen {
            do throws(HostPort.ParseError) {
                // Port 0 picks a free port (tests run several daemons side by side); the
                // daemon logs the address it got.
                copy.http.listen = try HostPort.parse(listen, allowsAnyPort: true)
            } catch {
                issues.append(ConfigIssue(file: "command line", key: "http.listen", kind: .invalidValue,
                                          message: "--listen: \(error.description)"))
            }
        }
        if !issues.isEmpty { throw ConfigError(issues: issues) }
        return copy
    }
}
