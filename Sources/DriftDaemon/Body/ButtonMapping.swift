import DriftConfig

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

    /// The buttons whose plain press proves presence: every press of one of them counts
    /// towards a visitor's press count, whatever gesture the presses form.
    public var presenceButtons: Set<String> {
        Set(actions.compactMap { entry in
            if case .press(let button) = entry.key, entry.value == .presenceProof { return button }
            return nil
        })
    }

    /// The default mapping for the `presence` and `keep-alive` buttons.
    public static let standard = ButtonMapping(actions: [
        .press("presence"): .presenceProof,
        .press("keep-alive"): .keepAlive,
        .longPress("presence"): .showStatusCode,
        .longPress("keep-alive"): .runSelftest,
        .combo(["keep-alive", "presence"]): .ledTest,
    ])

    /// One button does it all (the presence line): press = presence proof,
    /// double press = keep alive, long press = status code.
    public static let single = ButtonMapping(actions: [
        .press("presence"): .presenceProof,
        .doublePress("presence"): .keepAlive,
        .longPress("presence"): .showStatusCode,
    ])

    /// The mapping a board's `[buttons]` section describes: its `mapping` preset, then each
    /// per-gesture key (`presence_long = "selftest"`; `"none"` unmaps the gesture).
    public init(config: DriftConfiguration.Buttons) {
        switch config.mapping {
        case .standard: self = .standard
        case .single: self = .single
        case .none: self = ButtonMapping(actions: [:])
        }
        for (gestureText, name) in config.overrides {
            guard let gesture = ButtonGesture(gestureText) else { continue }
            actions[gesture] = ButtonAction(rawValue: name.rawValue)
        }
    }

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
