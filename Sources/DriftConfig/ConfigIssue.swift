/// One problem found in a configuration file: where it is, which key, and what is wrong.
///
/// `description` renders the conventional one-line form used in logs and by
/// `driftd config check`, e.g. `driftd.toml:12: radio.baud: expected an integer, found a string`.
public struct ConfigIssue: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// What kind of problem this is.
    public enum Kind: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
        /// The file is not valid TOML (line and column come from the parser).
        case syntax
        /// A key or table that driftd does not know.
        case unknownKey
        /// A value of the wrong TOML type (a string where an integer belongs, …).
        case wrongType
        /// A required key is absent after merging the board profile and the file.
        case missingKey
        /// A value of the right type that is out of range or otherwise not acceptable.
        case invalidValue
        /// The file could not be read at all (missing, a directory, not UTF-8, too large).
        case unreadable
    }

    /// The file the key came from, or the file that should contain a missing key.
    public var file: String
    /// 1-based line in `file`, when known.
    public var line: Int?
    /// 1-based column, known only for syntax errors.
    public var column: Int?
    /// Dotted key path (`radio.baud`); empty when the issue is about the whole file.
    public var key: String
    public var kind: Kind
    /// What is wrong, without the location (`expected an integer, found a string`).
    public var message: String
    /// A suggestion such as "did you mean `radio.baud`?".
    public var hint: String?

    public init(
        file: String, line: Int? = nil, column: Int? = nil, key: String, kind: Kind,
        message: String, hint: String? = nil
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    /// `file:line: key: message; hint` — parts that are unknown are left out.
    public var description: String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": "
        if !key.isEmpty { text += "\(key): " }
        text += message
        if let hint { text += "; \(hint)" }
        return text
    }
}
