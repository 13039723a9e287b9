/// A well-framed sentence whose content cannot be used.
public struct NMEAParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sentence as received.
    public var sentence: String
    /// What was wrong, e.g. "GSV page number is not a number".
    public var reason: String

    public init(sentence: String, reason: String) {
        self.sentence = sentence
        self.reason = reason
    }

    public var description: String { "\(reason): \(sentence)" }
}
