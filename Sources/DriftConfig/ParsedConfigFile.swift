import TOMLKit

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
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            return .failure(single(ConfigIssue(
                file: file, line: error.source.begin.line, column: error.source.begin.column, key: "",
                kind: .syntax, message: "TOML syntax error: \(error.description)")))
        } catch {
            return .failure(single(ConfigIssue(
                file: file, key: "", kind: .syntax, message: "TOML syntax error: \(error)")))
        }
        return .success(ParsedConfigFile(
            file: file, root: TOMLNode.tree(from: table), lines: TOMLKeyScanner.scan(text)))
    }

    private static func single(_ issue: ConfigIssue) -> ConfigError {
        ConfigError(issues: [issue])
    }
}
