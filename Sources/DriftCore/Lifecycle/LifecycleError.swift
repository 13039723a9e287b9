/// A lifecycle operation that the rules forbid.
public enum LifecycleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No row of the transition table matches.
    case invalidTransition(from: BottleState, trigger: LifecycleTrigger)
    /// Only the creator may do this (edit, retire).
    case notCreator
    /// The operation needs a bottle that has not been opened yet.
    case alreadyOpened

    public var description: String {
        switch self {
        case .invalidTransition(let from, let trigger): "invalid lifecycle transition: \(trigger.rawValue) in state \(from.rawValue)"
        case .notCreator: "only the bottle's creator may do this"
        case .alreadyOpened: "the bottle has already been opened"
        }
    }
}
