/// Turns debounced button level changes into gestures: press, long press,
/// double press and combos. A pure state machine with explicit times, like
/// `Debouncer` whose output it takes.
///
/// Feed every change with ``handle(button:pressed:at:)`` and call
/// ``poll(now:)`` at ``deadline`` (long presses, combos and single presses
/// waiting out the double-press gap are decided by time, not by an edge).
/// Both return the gestures recognised, in time order.
///
/// Rules (times from ``Settings``):
/// - **press**: released before ``Settings/longPress``; reported once
///   ``Settings/doublePressGap`` has passed after the release without a second
///   press (immediately on release if the gap is zero).
/// - **double press**: a second press starting within the gap, released before
///   the long-press time. If the second press is held long instead, the first
///   counts as a press and the second as a long press.
/// - **long press**: reported when the hold reaches the long-press time; the
///   release that follows reports nothing.
/// - **combo**: a button pressed while another is down (and that one has not
///   reached its long press yet) joins it in a combo: neither reports its own
///   gesture until all are released. If all are still held ``Settings/comboHold``
///   after the last one went down, the combo is reported (once); released sooner,
///   nothing is reported.
///
/// A repeated level (press while pressed) is ignored. Times earlier than the
/// previous change are treated as that time.
public struct ButtonGestureRecognizer: Sendable, Equatable {
    /// Gesture timing.
    public struct Settings: Sendable, Equatable {
        public var longPress: Duration
        public var doublePressGap: Duration
        public var comboHold: Duration

        /// - Parameters:
        ///   - longPress: hold time of a long press (default 2 s).
        ///   - doublePressGap: most time from a release to the next press of a double press
        ///     (default 400 ms; zero disables double presses and reports presses on release).
        ///   - comboHold: how long buttons must be held together (default 1 s).
        public init(longPress: Duration = .seconds(2), doublePressGap: Duration = .milliseconds(400), comboHold: Duration = .seconds(1)) {
            precondition(longPress > .zero && doublePressGap >= .zero && comboHold > .zero, "gesture times must be positive")
            self.longPress = longPress
            self.doublePressGap = doublePressGap
            self.comboHold = comboHold
        }
    }

    private enum Phase: Sendable, Equatable {
        case down(since: Duration)
        case heldLong
        case released(at: Duration)
        case downAgain(since: Duration)
        /// Part of the current combo; `down` is the button's level.
        case inCombo(down: Bool)
    }

    private struct Combo: Sendable, Equatable {
        var buttons: Set<String>
        var since: Duration
        var reported = false
    }

    public let settings: Settings
    private var phases: [String: Phase] = [:]
    private var combo: Combo?
    private var lastTime: Duration = .zero

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Whether `button` is currently held, as far as the recognizer knows.
    public func isDown(_ button: String) -> Bool {
        switch phases[button] {
        case .down, .heldLong, .downAgain, .inCombo(down: true): return true
        default: return false
        }
    }

    /// When ``poll(now:)`` can next report something; `nil` while nothing is pending.
    public var deadline: Duration? {
        var times: [Duration] = phases.values.compactMap { phase in
            switch phase {
            case .down(let since), .downAgain(let since): return since + settings.longPress
            case .released(let at): return at + settings.doublePressGap
            case .heldLong, .inCombo: return nil
            }
        }
        if let combo, !combo.reported { times.append(combo.since + settings.comboHold) }
        return times.min()
    }

    /// Feeds one debounced change (e.g. a `ButtonEvent` or `Debouncer.Change`).
    public mutating func handle(button: String, pressed: Bool, at time: Duration) -> [ButtonGesture] {
        let time = max(time, lastTime)
        var gestures = poll(now: time)
        lastTime = time
        if pressed {
            press(button, at: time, into: &gestures)
        } else {
            release(button, at: time, into: &gestures)
        }
        return gestures
    }

    /// Reports the gestures decided by time up to `now`, in time order.
    public mutating func poll(now: Duration) -> [ButtonGesture] {
        var gestures: [ButtonGesture] = []
        while let due = deadline, due <= now {
            fire(at: due, into: &gestures)
        }
        lastTime = max(lastTime, now)
        return gestures
    }

    // MARK: - Transitions

    private mutating func press(_ button: String, at time: Duration, into gestures: inout [ButtonGesture]) {
        if var current = combo {
            // A combo is in progress: any press joins it.
            if current.buttons.contains(button) {
                guard phases[button] == .inCombo(down: false) else { return }
            } else if case .released = phases[button] {
                gestures.append(.press(button))  // its single press was complete
            }
            current.buttons.insert(button)
            current.since = time
            if current.reported { current.reported = false }
            combo = current
            phases[button] = .inCombo(down: true)
            return
        }
        let partners = phases.compactMap { entry -> String? in
            switch entry.value {
            case .down, .downAgain: return entry.key == button ? nil : entry.key
            default: return nil
            }
        }
        if !partners.isEmpty {
            // Flush completed single presses before the buttons join a combo: this
            // button's pending one, and the first press of a partner pressed again.
            if case .released = phases[button] { gestures.append(.press(button)) }
            for partner in partners.sorted() {
                if case .downAgain = phases[partner] { gestures.append(.press(partner)) }
            }
            let members = Set(partners + [button])
            for member in members { phases[member] = .inCombo(down: true) }
            combo = Combo(buttons: members, since: time)
            return
        }
        switch phases[button] {
        case nil: phases[button] = .down(since: time)
        case .released: phases[button] = .downAgain(since: time)
        default: break  // repeated level
        }
    }

    private mutating func release(_ button: String, at time: Duration, into gestures: inout [ButtonGesture]) {
        switch phases[button] {
        case .down:
            if settings.doublePressGap == .zero {
                gestures.append(.press(button))
                phases[button] = nil
            } else {
                phases[button] = .released(at: time)
            }
        case .downAgain:
            gestures.append(.doublePress(button))
            phases[button] = nil
        case .heldLong:
            phases[button] = nil
        case .inCombo(down: true):
            phases[button] = .inCombo(down: false)
            if let members = combo?.buttons, members.allSatisfy({ phases[$0] == .inCombo(down: false) }) {
                for member in members { phases[member] = nil }
                combo = nil
            }
        case .inCombo(down: false), .released, nil:
            break  // repeated level
        }
    }

    /// Handles the earliest deadline, at `due`.
    private mutating func fire(at due: Duration, into gestures: inout [ButtonGesture]) {
        if let current = combo, !current.reported, current.since + settings.comboHold == due {
            gestures.append(.combo(current.buttons.sorted()))
            combo?.reported = true
            return
        }
        // The first button (by name, for determinism) whose deadline is `due`.
        for button in phases.keys.sorted() {
            switch phases[button] {
            case .down(let since) where since + settings.longPress == due:
                gestures.append(.longPress(button))
                phases[button] = .heldLong
                return
            case .downAgain(let since) where since + settings.longPress == due:
                gestures.append(.press(button))
                gestures.append(.longPress(button))
                phases[button] = .heldLong
                return
            case .released(let at) where at + settings.doublePressGap == due:
                gestures.append(.press(button))
                phases[button] = nil
                return
            default:
                continue
            }
        }
    }
}
