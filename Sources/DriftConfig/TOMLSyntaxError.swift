/// A TOML document that is not valid TOML 1.0, with the position of the first problem.
///
/// `line` and `column` are 1-based; the column counts Unicode scalars, not bytes.
/// `message` says what is wrong in words a person editing the file understands
/// (`unterminated string`, `table [box] is defined twice (first on line 3)`).
struct TOMLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    var line: Int
    var column: Int
    var message: String

    /// `line:column: message`.
    var description: String { "\(line):\(column): \(message)" }
}
