/// Where a bottle is in its life. See `docs/lifecycle.md` for the transition table.
public enum BottleState: String, Sendable, Codable, CaseIterable {
    /// Some ambient condition does not hold; reachable only by share code.
    case locked
    /// Every ambient condition holds; listed in discovery, can be opened.
    case openable
    /// Opened; the chat is alive.
    case active
    /// Nobody present and no keeper hold: the survival countdown runs.
    case dying
    /// Over; everything belonging to it is erased. Terminal.
    case expired

    /// Whether the bottle has been opened at least once.
    public var hasBeenOpened: Bool {
        self == .active || self == .dying
    }
}
