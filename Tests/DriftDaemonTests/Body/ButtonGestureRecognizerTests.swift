import DriftDaemon
import Hardware
import Testing

@Suite("Button gestures")
struct ButtonGestureRecognizerTests {
    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    /// Feeds (button, pressed, ms) changes, then polls at `end` ms; returns all gestures with the time they were reported.
    static func run(
        _ changes: [(String, Bool, Int)],
        until end: Int,
        settings: ButtonGestureRecognizer.Settings = .init()
    ) -> [(ButtonGesture, Int)] {
        var recognizer = ButtonGestureRecognizer(settings: settings)
        var out: [(ButtonGesture, Int)] = []
        for (button, pressed, time) in changes {
            // Poll at each deadline before the change, as a driver loop would.
            while let deadline = recognizer.deadline, deadline < ms(time) {
                out += recognizer.poll(now: deadline).map { ($0, Int(deadline / ms(1))) }
            }
            out += recognizer.handle(button: button, pressed: pressed, at: ms(time)).map { ($0, time) }
        }
        while let deadline = recognizer.deadline, deadline <= ms(end) {
            out += recognizer.poll(now: deadline).map { ($0, Int(deadline / ms(1))) }
        }
        return out
    }

    static func gestures(_ result: [(ButtonGesture, Int)]) -> [ButtonGesture] { result.map(\.0) }

    @Test func shortPressReportedAfterDoublePressGap() {
        let result = Self.run([("presence", true, 1000), ("presence", false, 1150)], until: 5000)
        #expect(Self.gestures(result) == [.press("presence")])
        #expect(result.first?.1 == 1550)  // release + 400 ms gap
    }

    @Test func shortPressOnReleaseWhenDoublePressDisabled() {
        let settings = ButtonGestureRecognizer.Settings(doublePressGap: .zero)
        let result = Self.run([("presence", true, 1000), ("presence", false, 1150)], until: 5000, settings: settings)
        #expect(Self.gestures(result) == [.press("presence")])
        #expect(result.first?.1 == 1150)
    }

    @Test func longPressReportedWhileHeldAndReleaseIsSilent() {
        let result = Self.run([("keep-alive", true, 0), ("keep-alive", false, 5000)], until: 9000)
        #expect(Self.gestures(result) == [.longPress("keep-alive")])
        #expect(result.first?.1 == 2000)
    }

    @Test func releaseJustBeforeLongPressIsAPress() {
        let result = Self.run([("presence", true, 0), ("presence", false, 1999)], until: 9000)
        #expect(Self.gestures(result) == [.press("presence")])
    }

    @Test func doublePress() {
        let result = Self.run([
            ("presence", true, 0), ("presence", false, 120),
            ("presence", true, 400), ("presence", false, 520),
        ], until: 5000)
        #expect(Self.gestures(result) == [.doublePress("presence")])
        #expect(result.first?.1 == 520)
    }

    @Test func secondPressAfterGapIsTwoPresses() {
        let result = Self.run([
            ("presence", true, 0), ("presence", false, 100),
            ("presence", true, 501), ("presence", false, 600),
        ], until: 5000)
        #expect(Self.gestures(result) == [.press("presence"), .press("presence")])
        #expect(result.map(\.1) == [500, 1000])
    }

    @Test func pressThenLongPress() {
        let result = Self.run([
            ("presence", true, 0), ("presence", false, 100),
            ("presence", true, 300), ("presence", false, 4000),
        ], until: 5000)
        #expect(Self.gestures(result) == [.press("presence"), .longPress("presence")])
        #expect(result.map(\.1) == [2300, 2300])
    }

    @Test func comboHeldTogether() {
        let result = Self.run([
            ("presence", true, 0), ("keep-alive", true, 200),
            ("presence", false, 3000), ("keep-alive", false, 3100),
        ], until: 9000)
        #expect(Self.gestures(result) == [.combo(["keep-alive", "presence"])])
        #expect(result.first?.1 == 1200)  // comboHold after the second button
    }

    @Test func comboReleasedEarlyReportsNothing() {
        let result = Self.run([
            ("presence", true, 0), ("keep-alive", true, 200),
            ("keep-alive", false, 700), ("presence", false, 900),
        ], until: 9000)
        #expect(Self.gestures(result).isEmpty)
    }

    @Test func comboSuppressesLongPressOfMembers() {
        // Both held 5 s: one combo, no long presses, nothing on release.
        let result = Self.run([
            ("presence", true, 0), ("keep-alive", true, 100),
            ("presence", false, 5000), ("keep-alive", false, 5000),
        ], until: 9000)
        #expect(Self.gestures(result) == [.combo(["keep-alive", "presence"])])
    }

    @Test func pressAfterLongPressIsNotACombo() {
        // presence reached its long press before keep-alive went down.
        let result = Self.run([
            ("presence", true, 0), ("keep-alive", true, 2500), ("keep-alive", false, 2600),
            ("presence", false, 3000),
        ], until: 9000)
        #expect(Self.gestures(result) == [.longPress("presence"), .press("keep-alive")])
    }

    @Test func buttonsAfterComboWorkAgain() {
        let result = Self.run([
            ("presence", true, 0), ("keep-alive", true, 100),
            ("presence", false, 1500), ("keep-alive", false, 1600),
            ("presence", true, 3000), ("presence", false, 3100),
        ], until: 9000)
        #expect(Self.gestures(result) == [.combo(["keep-alive", "presence"]), .press("presence")])
    }

    @Test func repeatedLevelsAreIgnored() {
        let result = Self.run([
            ("presence", false, 0),
            ("presence", true, 100), ("presence", true, 150), ("presence", false, 200), ("presence", false, 250),
        ], until: 9000)
        #expect(Self.gestures(result) == [.press("presence")])
    }

    @Test func chatterWithinDebounceWindowIsOnePress() {
        // Raw contact bounce through the GPIO Debouncer, then the recognizer.
        var debouncer = Debouncer(initialLevel: false, window: .milliseconds(30))
        var recognizer = ButtonGestureRecognizer()
        var gestures: [ButtonGesture] = []
        func deliver(_ change: Debouncer.Change?) {
            if let change { gestures += recognizer.handle(button: "presence", pressed: change.level, at: change.at) }
        }
        // Press at 1000 ms with chatter for 12 ms; release at 1200 ms with chatter for 8 ms.
        let raw: [(Bool, Int)] = [(true, 1000), (false, 1002), (true, 1005), (false, 1007), (true, 1012),
                                  (false, 1200), (true, 1203), (false, 1208)]
        for (level, time) in raw {
            deliver(debouncer.feed(level, at: Self.ms(time)))
        }
        deliver(debouncer.poll(now: Self.ms(1300)))
        gestures += recognizer.poll(now: Self.ms(3000))
        #expect(gestures == [.press("presence")])
    }

    @Test func deadlineIsTheEarliestPendingDecision() {
        var recognizer = ButtonGestureRecognizer()
        #expect(recognizer.deadline == nil)
        _ = recognizer.handle(button: "presence", pressed: true, at: Self.ms(100))
        #expect(recognizer.deadline == Self.ms(2100))
        #expect(recognizer.isDown("presence"))
        _ = recognizer.handle(button: "presence", pressed: false, at: Self.ms(200))
        #expect(recognizer.deadline == Self.ms(600))
        #expect(recognizer.poll(now: Self.ms(599)).isEmpty)
        #expect(recognizer.poll(now: Self.ms(600)) == [.press("presence")])
        #expect(recognizer.deadline == nil)
    }

    @Test func gestureTextRoundTrips() {
        for gesture: ButtonGesture in [.press("presence"), .doublePress("keep-alive"), .longPress("presence"), .combo(["keep-alive", "presence"])] {
            #expect(ButtonGesture(gesture.description) == gesture)
        }
        #expect(ButtonGesture("presence+keep-alive") == .combo(["keep-alive", "presence"]))
        for bad in ["presence", "presence.tap", ".press", "a+", "a+a", "a.press+b"] {
            #expect(ButtonGesture(bad) == nil, "\(bad)")
        }
    }

    @Test func mappingTableParsesAndRejects() throws {
        let mapping = try ButtonMapping(table: ["presence.press": "presence-proof", "presence+keep-alive": "selftest"])
        #expect(mapping.action(for: .press("presence")) == .presenceProof)
        #expect(mapping.action(for: .combo(["keep-alive", "presence"])) == .runSelftest)
        #expect(mapping.action(for: .longPress("presence")) == nil)
        #expect(throws: ButtonMapping.InvalidEntry.self) { try ButtonMapping(table: ["presence.tap": "selftest"]) }
        #expect(throws: ButtonMapping.InvalidEntry.self) { try ButtonMapping(table: ["presence.press": "reboot"]) }
        #expect(ButtonMapping.standard.action(for: .press("keep-alive")) == .keepAlive)
        #expect(ButtonMapping.standard.action(for: .longPress("keep-alive")) == .runSelftest)
        #expect(ButtonMapping.standard.action(for: .longPress("presence")) == .showStatusCode)
    }
}

@Suite("Button gestures around combos")
struct ButtonComboEdgeTests {
    @Test func pendingSinglePressIsNotLostWhenAComboStarts() {
        // presence pressed and released; within the gap it is pressed again while keep-alive is held.
        let result = ButtonGestureRecognizerTests.run([
            ("keep-alive", true, 0),
            ("presence", true, 100), ("presence", false, 200),  // joins keep-alive: a combo
            ("keep-alive", false, 300),
        ], until: 5000)
        #expect(ButtonGestureRecognizerTests.gestures(result).isEmpty)

        let second = ButtonGestureRecognizerTests.run([
            ("presence", true, 0), ("presence", false, 100),  // a single press, waiting out the gap
            ("presence", true, 300),                          // second press starts…
            ("keep-alive", true, 400),                        // …and keep-alive joins it: a combo
            ("presence", false, 2000), ("keep-alive", false, 2000),
        ], until: 5000)
        #expect(ButtonGestureRecognizerTests.gestures(second) == [.press("presence"), .combo(["keep-alive", "presence"])])
    }

    @Test func thirdButtonJoinsCombo() {
        let result = ButtonGestureRecognizerTests.run([
            ("a", true, 0), ("b", true, 100), ("c", true, 300),
            ("a", false, 2000), ("b", false, 2000), ("c", false, 2000),
        ], until: 5000)
        #expect(ButtonGestureRecognizerTests.gestures(result) == [.combo(["a", "b", "c"])])
        #expect(result.first?.1 == 1300)
    }
}
