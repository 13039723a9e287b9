/// Input that the domain refuses: which field, the offending value (shortened), and why.
///
/// Thrown by validating initialisers (`BoxID`, `GeoPoint`, `BottleContent`, conditions, …);
/// `description` is safe to show to a visitor or to log. Secret fields (passwords) never
/// carry their value here.
public struct DomainValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field or parameter that failed, e.g. `"content.text"`.
    public var field: String
    /// The rejected input, cut to 80 characters; empty for secrets.
    public var value: String
    /// What is wrong, in words a visitor understands.
    public var problem: String

    public init(field: String, value: String, problem: String) {
        self.field = field
        self.value = String(value.prefix(80))
        self.problem = problem
    }

    public var description: String {
        value.isEmpty ? "\(field): \(problem)" : "\(field) '\(value)': \(problem)"
    }
}
