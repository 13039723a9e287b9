import Foundation

/// Loads `driftd.toml`: parse, overlay on the board profile, validate, collect every issue.
///
/// Loading steps:
/// 1. Parse the file (a syntax error stops here, with the parser's line and column).
/// 2. If `box.board` names a profile found in the board search path (see ``BoardLocator``)
///    and that profile is not the file itself, parse the profile as the base and overlay
///    the file's keys on it table by table (keys in the file win).
/// 3. Validate the merged result: types, ranges, required keys, unknown keys, cross-field
///    rules. Each issue names the file and line its key came from; a missing key names
///    the config file.
///
/// The static methods use the default system board directory `/usr/share/driftd/board`;
/// make an instance to choose others (tests pass `[]`).
public struct ConfigLoader: Sendable {
    /// The installed board profiles.
    public static let defaultSystemBoardDirectory = "/usr/share/driftd/board"
    /// Larger files are refused: a config file is a few KiB.
    public static let maximumFileSize = 1 << 20

    /// Searched after the config file's own directories.
    public var systemBoardDirectories: [String]

    public init(systemBoardDirectories: [String] = [ConfigLoader.defaultSystemBoardDirectory]) {
        self.systemBoardDirectories = systemBoardDirectories
    }

    // MARK: - Static conveniences (default board directories)

    public static func load(path: String) throws(ConfigError) -> LoadedConfiguration {
        try ConfigLoader().load(path: path)
    }

    public static func load(text: String, fileName: String, baseDirectory: String?) throws(ConfigError) -> LoadedConfiguration {
        try ConfigLoader().load(text: text, fileName: fileName, baseDirectory: baseDirectory)
    }

    public static func loadWithFallback(path: String, dataDirectory: String? = nil) throws(ConfigError) -> ConfigLoadOutcome {
        try ConfigLoader().loadWithFallback(path: path, dataDirectory: dataDirectory)
    }

    /// The embedded `board/sim.toml` (``DriftConfiguration/embeddedDefaultText``), used by
    /// `driftd run` without `--config`. No board profile is looked up.
    public static func loadEmbeddedDefault() -> LoadedConfiguration {
        let attempt = ConfigLoader(systemBoardDirectories: []).attempt(
            text: DriftConfiguration.embeddedDefaultText, file: DriftConfiguration.embeddedDefaultName,
            configDirectory: nil, ownPath: nil, lookUpProfile: false)
        guard let loaded = attempt.loaded else {
            // The embedded text is board/sim.toml, which the test suite validates.
            preconditionFailure("embedded default configuration is invalid:\n\(ConfigError(issues: attempt.issues))")
        }
        return loaded
    }

    // MARK: - Loading

    /// Reads and loads the file at `path`. Issues name the file as `path` is written.
    public func load(path: String) throws(ConfigError) -> LoadedConfiguration {
        let text: String
        switch Self.readText(path: path) {
        case .success(let contents): text = contents
        case .failure(let error): throw error
        }
        let result = attempt(text: text, file: path, configDirectory: BoardLocator.directory(of: path),
                             ownPath: path, lookUpProfile: true)
        guard let loaded = result.loaded else { throw ConfigError(issues: result.issues) }
        return loaded
    }

    /// Loads configuration text. `fileName` names it in issues; profiles and `box.board_dir`
    /// are looked up relative to `baseDirectory` (the working directory when `nil`).
    public func load(text: String, fileName: String, baseDirectory: String?) throws(ConfigError) -> LoadedConfiguration {
        let ownPath = baseDirectory.map { BoardLocator.join($0, fileName.split(separator: "/").last.map(String.init) ?? fileName) }
        let result = attempt(text: text, file: fileName, configDirectory: baseDirectory, ownPath: ownPath,
                             lookUpProfile: true)
        guard let loaded = result.loaded else { throw ConfigError(issues: result.issues) }
        return loaded
    }

    /// Loads `path`; if it is invalid, falls back to the last known good copy in the data directory.
    ///
    /// When `path` is valid its effective text is saved as the last known good copy
    /// (`<data dir>/driftd.last-good.toml`, written only when it changed). The data
    /// directory is `dataDirectory` (`--data-dir`) if given, else `storage.data_dir` of the
    /// configuration — for an invalid file, as far as it can be read. Throws the file's
    /// issues plus the reason the fallback failed when neither works.
    public func loadWithFallback(path: String, dataDirectory: String? = nil) throws(ConfigError) -> ConfigLoadOutcome {
        var primaryIssues: [ConfigIssue]
        var guessedDataDirectory: String?
        switch Self.readText(path: path) {
        case .failure(let error):
            primaryIssues = error.issues
        case .success(let text):
            let result = attempt(text: text, file: path, configDirectory: BoardLocator.directory(of: path),
                                 ownPath: path, lookUpProfile: true)
            if let loaded = result.loaded {
                let directory = dataDirectory ?? loaded.configuration.storage.dataDir
                var saveProblem: LastKnownGoodError?
                do throws(LastKnownGoodError) {
                    try LastKnownGood(directory: directory).save(loaded)
                } catch {
                    saveProblem = error
                }
                return .primary(loaded, saveProblem: saveProblem)
            }
            primaryIssues = result.issues
            guessedDataDirectory = result.dataDirectoryGuess
        }

        let problem = ConfigError(issues: primaryIssues)
        guard let directory = dataDirectory ?? guessedDataDirectory else {
            throw ConfigError(issues: primaryIssues + [ConfigIssue(
                file: path, key: "storage.data_dir", kind: .unreadable,
                message: "no last known good configuration: the data directory is unknown (pass --data-dir)")])
        }
        let lastKnownGood = LastKnownGood(directory: directory)
        do {
            let fallback = try lastKnownGood.load(using: self)
            return .lastKnownGood(fallback, problem: problem)
        } catch {
            throw ConfigError(issues: primaryIssues + error.issues)
        }
    }

    // MARK: - Pipeline

    struct Attempt {
        var loaded: LoadedConfiguration?
        var issues: [ConfigIssue]
        /// `storage.data_dir` of the merged tree when it is a non-empty string.
        var dataDirectoryGuess: String?
    }

    func attempt(
        text: String, file: String, configDirectory: String?, ownPath: String?, lookUpProfile: Bool
    ) -> Attempt {
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        let primary: ParsedConfigFile
        switch ParsedConfigFile.parse(text: text, file: file) {
        case .success(let parsed): primary = parsed
        case .failure(let error): return Attempt(loaded: nil, issues: error.issues)
        }

        // Board profile.
        let boxTable = primary.root["box"]?.tableValue
        let board = boxTable?["board"]?.stringValue
        var profile: ParsedConfigFile?
        var boardIssue: ConfigIssue?
        var boardIssueOnlyIfIncomplete = false
        if lookUpProfile, let board, BoardLocator.nameProblem(board) == nil {
            let location = BoardLocator.locate(
                board: board, boardDir: boxTable?["board_dir"]?.stringValue, configDirectory: configDirectory,
                systemDirectories: systemBoardDirectories)
            let boardLine = primary.lines["box.board"]
            switch location {
            case .found(let path):
                if ownPath.map({ BoardLocator.isSameFile($0, path) }) != true {
                    switch Self.readText(path: path).flatMap({ ParsedConfigFile.parse(text: $0, file: path) }) {
                    case .success(let parsed): profile = parsed
                    case .failure(let error): return Attempt(loaded: nil, issues: error.issues)
                    }
                }
            case .missingFile(let path):
                boardIssue = ConfigIssue(
                    file: file, line: boardLine, key: "box.board", kind: .invalidValue,
                    message: "the board profile `\(path)` does not exist")
            case .notFound(let searched, let available):
                boardIssueOnlyIfIncomplete = true
                boardIssue = ConfigIssue(
                    file: file, line: boardLine, key: "box.board", kind: .invalidValue,
                    message: "no board profile `\(board).toml` found (searched \(searched.joined(separator: ", "))), and this file does not set every required key itself",
                    hint: Suggestion.closest(to: board, among: available).map { "did you mean `\($0)`?" }
                        ?? (available.isEmpty ? nil : "available: \(available.joined(separator: ", "))"))
            }
        }

        // Merge and validate.
        var origins = ConfigOrigins()
        var root = primary.root
        if let profile {
            origins.overlay(profile)
            root = TOMLNode.merge(base: profile.root, overlay: primary.root)
        }
        origins.overlay(primary)
        let decoder = ConfigDecoder(root: root, origins: origins, primaryFile: file)
        let configuration = DriftConfiguration(reading: decoder)
        configuration.checkCrossFieldRules(decoder)
        decoder.reportUnknownKeys()

        var issues = decoder.issues
        if let boardIssue {
            // A board without a profile is fine when the file is complete. Say that the profile was
            // not found only when the file evidently relied on one (several keys missing) or when
            // the name is a near miss of a profile that exists.
            let missing = issues.filter { $0.kind == .missingKey }.count
            let nearMiss = boardIssue.hint?.hasPrefix("did you mean") == true
            if !boardIssueOnlyIfIncomplete || missing >= 2 || (missing >= 1 && nearMiss) {
                issues.append(boardIssue)
            }
        }
        let files = (profile.map { [$0.file] } ?? []) + [file]
        let dataDirectoryGuess = root["storage"]?.tableValue?["data_dir"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        guard issues.isEmpty else {
            return Attempt(loaded: nil, issues: Self.sorted(issues, fileOrder: files), dataDirectoryGuess: dataDirectoryGuess)
        }
        let header = [
            "Effective driftd configuration: the board profile with the config file's keys on top.",
            "Generated by driftd from \(files.joined(separator: " + ")). Edit the config file, not this one.",
        ]
        let effectiveText = TOMLWriter.document(root, order: DriftConfiguration.schema, header: header)
        let loaded = LoadedConfiguration(
            configuration: configuration, files: files, boardProfile: profile?.file, effectiveText: effectiveText)
        return Attempt(loaded: loaded, issues: [], dataDirectoryGuess: dataDirectoryGuess)
    }

    /// By file (merge order), then line (issues without a line last), then key.
    static func sorted(_ issues: [ConfigIssue], fileOrder: [String]) -> [ConfigIssue] {
        func fileRank(_ file: String) -> Int { fileOrder.firstIndex(of: file) ?? fileOrder.count }
        return issues.enumerated().sorted { left, right in
            let (a, b) = (left.element, right.element)
            if fileRank(a.file) != fileRank(b.file) { return fileRank(a.file) < fileRank(b.file) }
            if a.line != b.line {
                switch (a.line, b.line) {
                case (let x?, let y?): return x < y
                case (.some, .none): return true
                default: return false
                }
            }
            if a.key != b.key { return a.key < b.key }
            return left.offset < right.offset
        }.map(\.element)
    }

    // MARK: - Files

    /// Reads a config file as UTF-8 (a byte-order mark is dropped). Failures become `.unreadable` issues.
    static func readText(path: String) -> Result<String, ConfigError> {
        func failure(_ message: String) -> Result<String, ConfigError> {
            .failure(ConfigError(issues: [ConfigIssue(file: path, key: "", kind: .unreadable, message: message)]))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return failure("the file does not exist")
        }
        if isDirectory.boolValue { return failure("this is a directory, not a file") }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
           size > maximumFileSize {
            return failure("the file is \(size) bytes; a config file is at most \(maximumFileSize) bytes")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            return failure("cannot read the file: \(error.localizedDescription)")
        }
        guard data.count <= maximumFileSize else {
            return failure("the file is \(data.count) bytes; a config file is at most \(maximumFileSize) bytes")
        }
        guard var text = String(data: data, encoding: .utf8) else {
            return failure("the file is not UTF-8 text (save it as UTF-8)")
        }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return .success(text)
    }
}
