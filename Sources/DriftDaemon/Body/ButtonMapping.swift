/// Which gesture triggers which action; configurable per board.
///
/// The default (the installer table in `docs/leds-and-buttons.md`):
///
/// | gesture | action |
/// | --- | --- |
/// | `presence.press` | presence proof |
/// | `keep-alive.press` | keep alive |
/// | `presence.long` (2 s) | show status blink code |
/// | `keep-alive.long` (2 s) | run selftest |
/// | `keep-alive+presence` (both held 1 s) | LED test |
public struct ButtonMapping: Sendable, Equatable {
    /// A mapping entry that does not parse.
    public struct InvalidEntry: Error, Sendable, Equatable, CustomStringConvertible {
        public var gesture: String
        public var action: String
        public var reason: String
        public var description: String { "button mapping \"\(gesture)\" = \"\(action)\": \(reason)" }
    }

    public var actions: [ButtonGesture: ButtonAction]

    public init(actions: [ButtonGesture: ButtonAction]) {
        self.actions = actions
    }

    /// The default mapping for the `presence` and `keep-alive` buttons.
    public static let standard = ButtonMapping(actions: [
        .press("presence"): .presenceProof,
        .press("keep-alive"): .keepAlive,
        .longPress("presence"): .showStatusCode,
        .longPress("keep-alive"): .runSelftest,
        .combo(["keep-alive", "presence"]): .ledTest,
    ])

    /// Parses a board's table, e.g. `["presence.press": "presence-proof", "presence+keep-alive": "led-test"]`.
    /// - Throws: ``InvalidEntry`` naming the first entry whose gesture or action is unknown.
    public init(table: [String: String]) throws(InvalidEntry) {
        var actions: [ButtonGesture: ButtonAction] = [:]
        for (gestureText, actionText) in table.sorted(by: { $0.key < $1.key }) {
            guard let gesture = ButtonGesture(gestureText) else {
                throw InvalidEntry(gesture: gestureText, action: actionText, reason: "gesture must be BUTTON.press, BUTTON.double, BUTTON.long or BUTTON+BUTTON")
            }
            guard let action = ButtonAction(rawValue: actionText) else {
                let known = ButtonAction.allCases.map(\.rawValue).joined(separator: ", ")
                throw InvalidEntry(gesture: gestureText, action: actionText, reason: "unknown action (known: \(known))")
            }
            actions[gesture] = action
        }
        self.actions = actions
    }

    /// The action for `gesture`, if any.
    public func action(for gesture: ButtonGesture) -> ButtonAction? {
        actions[gesture]
    }
}
