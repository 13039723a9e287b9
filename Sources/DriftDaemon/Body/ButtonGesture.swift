/// What a person did with the box's buttons, recognised from debounced
/// press/release changes by ``ButtonGestureRecognizer``.
public enum ButtonGesture: Sendable, Hashable, CustomStringConvertible {
    /// A short press and release, not followed by a second press within the double-press gap.
    case press(String)
    /// Two short presses, the second starting within the double-press gap after the first release.
    case doublePress(String)
    /// Held for the long-press time; reported when the time is reached, while still held.
    case longPress(String)
    /// Two or more buttons held together for the combo time; names sorted.
    case combo([String])

    public var description: String {
        switch self {
        case .press(let button): return "\(button).press"
        case .doublePress(let button): return "\(button).double"
        case .longPress(let button): return "\(button).long"
        case .combo(let buttons): return buttons.joined(separator: "+")
        }
    }

    /// Parses the ``description`` form: `presence.press`, `presence.double`,
    /// `keep-alive.long`, `presence+keep-alive`; `nil` if it is none of these.
    public init?(_ text: String) {
        if text.contains("+") {
            let buttons = text.split(separator: "+").map(String.init)
            guard buttons.count >= 2, buttons.allSatisfy({ !$0.isEmpty && !$0.contains(".") }), Set(buttons).count == buttons.count else {
                return nil
            }
            self = .combo(buttons.sorted())
            return
        }
        guard let dot = text.lastIndex(of: ".") else { return nil }
        let button = String(text[..<dot])
        guard !button.isEmpty else { return nil }
        switch text[text.index(after: dot)...] {
        case "press": self = .press(button)
        case "double": self = .doublePress(button)
        case "long": self = .longPress(button)
        default: return nil
        }
    }
}
