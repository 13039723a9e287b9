import Foundation

/// Why an input needed by a condition is missing or unusable; its text is the reason shown.
public struct InputProblem: Error, Sendable, Equatable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}
