/// A configuration that cannot be used, with every problem found (not only the first).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// All issues, ordered by file, then line (issues without a line last in their file).
    public var issues: [ConfigIssue]

    public init(issues: [ConfigIssue]) {
        self.issues = issues
    }

    /// One issue per line.
    public var description: String {
        issues.map(\.description).joined(separator: "\n")
    }

    /// Issues of one kind, for callers and tests that care about a category.
    public func issues(ofKind kind: ConfigIssue.Kind) -> [ConfigIssue] {
        issues.filter { $0.kind == kind }
    }
}
