import DriftDaemon
import Testing

@Suite("LED mapping")
struct LEDMappingTests {
    let mapping = LEDMapping()
    let now = Duration.seconds(100)

    @Test func healthyBoxIsHeartbeat() {
        #expect(mapping.status(BoxBodyState(), now: now).pattern == .heartbeat)
    }

    @Test(arguments: FaultClass.allCases)
    func eachFaultHasItsOwnCode(_ fault: FaultClass) {
        let show = mapping.status(BoxBodyState(faults: [fault]), now: now)
        #expect(show.pattern == .blinkCode(fault.rawValue))
    }

    @Test func faultCodesAreDistinctAndDocumented() {
        let codes = FaultClass.allCases.map(\.blinkCode)
        #expect(codes == [1, 2, 3, 4, 5, 6])
    }

    @Test func lowestFaultCodeWins() {
        let state = BoxBodyState(faults: [.sensorFault, .storageError, .selftestFailure])
        #expect(mapping.status(state, now: now).pattern == .blinkCode(2))
    }

    @Test func stalledLoopOverridesCodes() {
        let state = BoxBodyState(faults: [.configError], loopsStalled: true)
        #expect(mapping.status(state, now: now).pattern == .fastBlink)
    }

    @Test func statusOverrideUntilItsTime() {
        let override = BoxBodyState.StatusOverride(pattern: LEDMapping.selftestResult(passed: false), until: .seconds(110))
        let state = BoxBodyState(faults: [.gpsAbsent], statusOverride: override)
        #expect(mapping.status(state, now: now).pattern == .blinkCode(6))
        #expect(mapping.status(state, now: .seconds(110)).pattern == .blinkCode(3))
        #expect(mapping.nextReevaluation(for: state, now: now) == .seconds(110))
        #expect(LEDMapping.selftestResult(passed: true) == .steady)
    }

    @Test func bottleLED() {
        #expect(mapping.bottle(BoxBodyState()) == .off)
        #expect(mapping.bottle(BoxBodyState(openableBottles: 2)) == .slowBlink)
        #expect(mapping.bottle(BoxBodyState(openableBottles: 2, chatAlive: true)) == .pulse)
        #expect(LEDMapping(bottlePWM: false).bottle(BoxBodyState(chatAlive: true)) == .steady)
    }

    @Test func dyingChatCountdownSpeedsUp() {
        func pattern(_ seconds: Int) -> LEDPattern {
            mapping.bottle(BoxBodyState(openableBottles: 1, chatAlive: true, dyingChatRemaining: .seconds(seconds)))
        }
        #expect(pattern(600) == .blink(on: .milliseconds(500), off: .milliseconds(500)))
        #expect(pattern(120) == .blink(on: .milliseconds(500), off: .milliseconds(500)))
        #expect(pattern(119) == .blink(on: .milliseconds(250), off: .milliseconds(250)))
        #expect(pattern(30) == .blink(on: .milliseconds(250), off: .milliseconds(250)))
        #expect(pattern(29) == .blink(on: .milliseconds(100), off: .milliseconds(100)))
        #expect(pattern(0) == .blink(on: .milliseconds(100), off: .milliseconds(100)))
    }

    @Test func radioFlashesOnActivity() {
        let state = BoxBodyState(lastRadioActivity: .milliseconds(100_000))
        let show = mapping.radio(state, now: .milliseconds(100_050))
        #expect(show == LEDMapping.Show(.flash(.milliseconds(80)), startedAt: .milliseconds(100_000)))
        #expect(mapping.radio(state, now: .milliseconds(100_080)).pattern == .off)
        #expect(mapping.nextReevaluation(for: state, now: .milliseconds(100_010)) == .milliseconds(100_080))
        #expect(mapping.radio(BoxBodyState(), now: now).pattern == .off)
    }

    @Test func gpsLED() {
        #expect(mapping.gps(.fix) == .steady)
        #expect(mapping.gps(.searching) == .slowBlink)
        #expect(mapping.gps(.absent) == .off)
    }

    @Test func playerKeepsPhaseAndRestartsOnChange() {
        var player = LEDPlayer()
        let healthy = BoxBodyState(gps: .searching)
        player.update(mapping.shows(for: healthy, now: .seconds(10)), now: .seconds(10))
        #expect(player.level(.status, at: .seconds(10)))  // heartbeat starts with a beat
        #expect(player.level(.gps, at: .seconds(10)))
        #expect(!player.level(.bottle, at: .seconds(10)))
        // Same state later: the heartbeat keeps its phase (no restart at 10.5 s).
        player.update(mapping.shows(for: healthy, now: .milliseconds(10_500)), now: .milliseconds(10_500))
        #expect(!player.level(.status, at: .milliseconds(10_500)))
        #expect(player.nextChange(after: .milliseconds(10_500)) == .seconds(11))
        // A fault: the status LED restarts with code 5 at 10.6 s.
        let faulty = BoxBodyState(faults: [.sensorFault], gps: .searching)
        player.update(mapping.shows(for: faulty, now: .milliseconds(10_600)), now: .milliseconds(10_600))
        #expect(player.pattern(.status) == .blinkCode(5))
        #expect(player.level(.status, at: .milliseconds(10_600)))
        #expect(!player.level(.status, at: .milliseconds(10_900)))
        // Radio activity at 10.7 s flashes from that time, even if applied a little later.
        let busy = BoxBodyState(faults: [.sensorFault], lastRadioActivity: .milliseconds(10_700), gps: .searching)
        player.update(mapping.shows(for: busy, now: .milliseconds(10_720)), now: .milliseconds(10_720))
        #expect(player.level(.radio, at: .milliseconds(10_720)))
        #expect(!player.level(.radio, at: .milliseconds(10_780)))
        #expect(player.nextChange(after: .milliseconds(10_720)) == .milliseconds(10_780))
    }
}

@Suite("LED test and status code display")
struct LEDDisplayTests {
    @Test func ledTestWalksEachLEDOnce() {
        let start = Duration.seconds(50)
        var lit: [LEDRole] = []
        for ms in stride(from: 0, to: 2000, by: 250) {
            let shows = LEDMapping.ledTest(startedAt: start, now: start + .milliseconds(ms))
            let on = shows?.filter { $0.value.pattern == .steady }.map(\.key) ?? []
            #expect(on.count == 1, "at \(ms) ms")
            if let role = on.first, lit.last != role { lit.append(role) }
        }
        #expect(lit == [.status, .bottle, .radio, .gps])
        #expect(LEDMapping.ledTest(startedAt: start, now: start + .seconds(2)) == nil)
        #expect(LEDMapping.ledTestNextStep(startedAt: start, now: start + .milliseconds(10)) == start + .milliseconds(500))
        #expect(LEDMapping.ledTestNextStep(startedAt: start, now: start + .milliseconds(1600)) == start + .seconds(2))
        #expect(LEDMapping.ledTestNextStep(startedAt: start, now: start + .seconds(2)) == nil)
    }

    @Test func statusCodeDisplay() {
        let now = Duration.seconds(10)
        let healthy = LEDMapping.statusCodeOverride(faults: [], now: now)
        #expect(healthy == BoxBodyState.StatusOverride(pattern: .steady, until: .seconds(13)))
        let faulty = LEDMapping.statusCodeOverride(faults: [.radioAbsent, .sensorFault], now: now)
        // Code 4: 4 × 600 ms + 1500 ms = 3.9 s per cycle, three cycles.
        #expect(faulty == BoxBodyState.StatusOverride(pattern: .blinkCode(4), until: now + .milliseconds(11_700)))
    }
}
