/// One configuration file parsed into a tree, with the line of every key path.
struct ParsedConfigFile: Sendable {
    /// The file name shown in issues (the path as the caller gave it).
    var file: String
    var root: [String: TOMLNode]
    /// Rendered key path → 1-based line.
    var lines: [String: Int]

    /// Parses `text`; a syntax error becomes one `.syntax` issue with the parser's line and column.
    static func parse(text: String, file: String) -> Result<ParsedConfigFile, ConfigError> {
        if let nul = text.utf8.firstIndex(of: 0) {
            let line = text.utf8[..<nul].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            return .failure(single(ConfigIssue(
                file: file, line: line, key: "", kind: .syntax,
                message: "the file contains a NUL byte (is it a binary file?)")))
        }
        let document: TOMLDocument
        do {
            document = try TOMLParser.parse(text)
        } catch {
            return .failure(single(ConfigIssue(
                file: file, line: error.line, column: error.column, key: "",
                kind: .syntax, message: "TOML syntax error: \(error.message)")))
        }
        return .success(ParsedConfigFile(file: file, root: document.root, lines: document.lines))
    }

    private static func single(_ issue: ConfigIssue) -> ConfigError {
        ConfigError(issues: [issue])
    }
}
