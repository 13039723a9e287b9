/// The one place that maps box state to LED patterns.
///
/// | LED | state (first match wins) | pattern |
/// | --- | --- | --- |
/// | status | a status override (status code / selftest result) active | its pattern |
/// | status | a main loop stalled | fast blink |
/// | status | faults | blink code of the lowest fault class (1…6) |
/// | status | healthy | heartbeat |
/// | bottle | a chat dying, < 30 s left | blink 100/100 ms |
/// | bottle | a chat dying, < 2 min left | blink 250/250 ms |
/// | bottle | a chat dying | blink 500/500 ms |
/// | bottle | a chat alive | pulse (steady without PWM) |
/// | bottle | openable bottles | slow blink |
/// | bottle | nothing | off |
/// | radio | send/receive in the last 80 ms | flash 80 ms (from the activity) |
/// | radio | otherwise | off |
/// | gps | fix / searching / absent | steady / slow blink / off |
public struct LEDMapping: Sendable, Equatable {
    /// A pattern and, for patterns tied to an event, the monotonic time it started.
    public struct Show: Sendable, Equatable {
        public var pattern: LEDPattern
        /// When the pattern's time 0 is; `nil`: from when it was first shown.
        public var startedAt: Duration?

        public init(_ pattern: LEDPattern, startedAt: Duration? = nil) {
            self.pattern = pattern
            self.startedAt = startedAt
        }
    }

    /// Length of the radio LED's flash per activity.
    public static let radioFlash = Duration.milliseconds(80)
    /// Dying-chat thresholds: below these the bottle LED blinks faster.
    public static let dyingUrgent = Duration.seconds(30)
    public static let dyingSoon = Duration.seconds(120)

    /// Whether the bottle LED's line can do software PWM (otherwise `pulse` shows as steady).
    public var bottlePWM: Bool

    public init(bottlePWM: Bool = true) {
        self.bottlePWM = bottlePWM
    }

    /// What each LED shows for `state` at monotonic time `now`.
    public func shows(for state: BoxBodyState, now: Duration) -> [LEDRole: Show] {
        [
            .status: status(state, now: now),
            .bottle: Show(bottle(state)),
            .radio: radio(state, now: now),
            .gps: Show(gps(state.gps)),
        ]
    }

    /// The status LED's pattern.
    public func status(_ state: BoxBodyState, now: Duration) -> Show {
        if let override = state.statusOverride, now < override.until {
            return Show(override.pattern)
        }
        if state.loopsStalled { return Show(.fastBlink) }
        if let worst = state.faults.min() { return Show(.blinkCode(worst.blinkCode)) }
        return Show(.heartbeat)
    }

    /// The bottle LED's pattern.
    public func bottle(_ state: BoxBodyState) -> LEDPattern {
        if let remaining = state.dyingChatRemaining {
            if remaining < Self.dyingUrgent { return .blink(on: .milliseconds(100), off: .milliseconds(100)) }
            if remaining < Self.dyingSoon { return .blink(on: .milliseconds(250), off: .milliseconds(250)) }
            return .blink(on: .milliseconds(500), off: .milliseconds(500))
        }
        if state.chatAlive { return bottlePWM ? .pulse : .steady }
        if state.openableBottles > 0 { return .slowBlink }
        return .off
    }

    /// The radio LED's pattern: a flash started at the last activity, while it lasts.
    public func radio(_ state: BoxBodyState, now: Duration) -> Show {
        if let activity = state.lastRadioActivity, now >= activity, now - activity < Self.radioFlash {
            return Show(.flash(Self.radioFlash), startedAt: activity)
        }
        return Show(.off)
    }

    /// The GPS LED's pattern.
    public func gps(_ gps: BoxBodyState.GPS) -> LEDPattern {
        switch gps {
        case .fix: return .steady
        case .searching: return .slowBlink
        case .absent: return .off
        }
    }

    /// The status pattern that reports a selftest result for a while:
    /// passed → steady, failed → the selftest-failure blink code.
    public static func selftestResult(passed: Bool) -> LEDPattern {
        passed ? .steady : .blinkCode(FaultClass.selftestFailure.blinkCode)
    }

    /// How long each LED is lit in the LED test.
    public static let ledTestStep = Duration.milliseconds(500)
    /// How long the status-code display lasts: three blink-code cycles, or 3 s steady when healthy.
    public static let statusCodeCycles = 3

    /// The LED test ("walk each LED") started at `start`: each LED in
    /// ``LEDRole`` order lit alone for ``ledTestStep``, the others off; `nil`
    /// once the walk is over (the normal shows resume).
    public static func ledTest(startedAt start: Duration, now: Duration) -> [LEDRole: Show]? {
        guard now >= start else { return nil }
        let step = Int((now - start) / ledTestStep)
        guard step < LEDRole.allCases.count else { return nil }
        var shows: [LEDRole: Show] = [:]
        for (index, role) in LEDRole.allCases.enumerated() {
            shows[role] = Show(index == step ? .steady : .off)
        }
        return shows
    }

    /// When the LED test started at `start` next changes after `now` (`nil` when over).
    public static func ledTestNextStep(startedAt start: Duration, now: Duration) -> Duration? {
        guard now >= start else { return start }
        let step = Int((now - start) / ledTestStep) + 1
        guard step <= LEDRole.allCases.count else { return nil }
        return start + ledTestStep * step
    }

    /// The status override for the "show status code" button action at `now`:
    /// the lowest fault's blink code for three cycles, or steady for 3 s when healthy.
    public static func statusCodeOverride(faults: Set<FaultClass>, now: Duration) -> BoxBodyState.StatusOverride {
        guard let worst = faults.min() else {
            return BoxBodyState.StatusOverride(pattern: .steady, until: now + .seconds(3))
        }
        let pattern = LEDPattern.blinkCode(worst.blinkCode)
        return BoxBodyState.StatusOverride(pattern: pattern, until: now + (pattern.period ?? .zero) * statusCodeCycles)
    }

    /// When the mapping's output changes by time alone (an override or radio flash
    /// ends, a dying chat's countdown crosses a blink-speed threshold) after `now`;
    /// re-evaluate then even without new state.
    public func nextReevaluation(for state: BoxBodyState, now: Duration) -> Duration? {
        var times: [Duration] = []
        if let remaining = state.dyingChatRemaining {
            for threshold in [Self.dyingSoon, Self.dyingUrgent] where remaining > threshold {
                times.append(now + (remaining - threshold))
            }
        }
        if let override = state.statusOverride, now < override.until { times.append(override.until) }
        if let activity = state.lastRadioActivity, now >= activity, now - activity < Self.radioFlash {
            times.append(activity + Self.radioFlash)
        }
        return times.min()
    }
}
