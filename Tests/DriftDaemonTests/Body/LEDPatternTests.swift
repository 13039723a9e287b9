import DriftDaemon
import Testing

@Suite("LED patterns")
struct LEDPatternTests {
    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    /// Samples the level every millisecond over [from, to) and returns the (time, level) of every change.
    static func transitions(_ pattern: LEDPattern, from: Int = 0, to: Int) -> [(Int, Bool)] {
        var result: [(Int, Bool)] = [(from, pattern.level(at: ms(from)))]
        for t in (from + 1)..<to {
            let level = pattern.level(at: ms(t))
            if level != result.last!.1 { result.append((t, level)) }
        }
        return result
    }

    /// Checks nextChange against the sampled transitions.
    static func expectNextChangesMatch(_ pattern: LEDPattern, to: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let changes = transitions(pattern, to: to).dropFirst().map(\.0)
        var t = 0
        var found: [Int] = []
        while let next = pattern.nextChange(after: ms(t)), next < ms(to) {
            found.append(Int(next / ms(1)))
            t = Int(next / ms(1))
        }
        #expect(found == Array(changes), "\(pattern)", sourceLocation: sourceLocation)
    }

    @Test func constants() {
        for t in [0, 1, 999, 86_400_000] {
            #expect(LEDPattern.off.level(at: Self.ms(t)) == false)
            #expect(LEDPattern.steady.level(at: Self.ms(t)) == true)
        }
        #expect(LEDPattern.off.nextChange(after: .zero) == nil)
        #expect(LEDPattern.steady.nextChange(after: .zero) == nil)
        #expect(LEDPattern.off.period == nil)
    }

    @Test func slowBlink() {
        #expect(Self.transitions(.slowBlink, to: 4000).map(\.0) == [0, 1000, 2000, 3000])
        #expect(LEDPattern.slowBlink.level(at: Self.ms(0)))
        #expect(!LEDPattern.slowBlink.level(at: Self.ms(1000)))
        #expect(LEDPattern.slowBlink.nextChange(after: Self.ms(1500)) == Self.ms(2000))
        Self.expectNextChangesMatch(.slowBlink, to: 6000)
    }

    @Test func fastBlink() {
        let t = Self.transitions(.fastBlink, to: 1000)
        #expect(t.map(\.0) == [0, 125, 250, 375, 500, 625, 750, 875])
        #expect(t.map(\.1) == [true, false, true, false, true, false, true, false])
        Self.expectNextChangesMatch(.fastBlink, to: 2000)
    }

    @Test func heartbeat() {
        let t = Self.transitions(.heartbeat, to: 2000)
        #expect(t.map(\.0) == [0, 100, 200, 300, 1000, 1100, 1200, 1300])
        #expect(t.map(\.1) == [true, false, true, false, true, false, true, false])
        #expect(LEDPattern.heartbeat.period == .seconds(1))
        Self.expectNextChangesMatch(.heartbeat, to: 3000)
    }

    @Test func pulseIsSoftwarePWMRampingUpAndDown() {
        #expect(LEDPattern.pulse.period == .seconds(2))
        // Duty per 20 ms frame: 0 at the ends, 100 % in the middle, in 10 % steps.
        let duties = (0..<LEDPattern.pulseFrames).map { LEDPattern.pulseDuty(frame: $0) }
        #expect(duties.first == 0 && duties.last == 0)
        #expect(duties.max() == 10)
        #expect(Set(duties) == Set(0...10))
        #expect(duties == duties.reversed())  // symmetric
        for i in 1..<50 { #expect(duties[i] >= duties[i - 1]) }
        // Measured on-time per frame matches the duty exactly.
        for frame in 0..<LEDPattern.pulseFrames {
            let start = frame * 20
            let onMs = (start..<(start + 20)).filter { LEDPattern.pulse.level(at: Self.ms($0)) }.count
            #expect(onMs == duties[frame] * 2, "frame \(frame)")
        }
        // First frames are dark; the middle frames are fully on.
        #expect(!LEDPattern.pulse.level(at: Self.ms(10)))
        #expect(LEDPattern.pulse.level(at: Self.ms(1000)))
        Self.expectNextChangesMatch(.pulse, to: 4000)
    }

    @Test(arguments: 1...LEDPattern.maximumBlinkCode)
    func blinkCode(_ n: Int) {
        let pattern = LEDPattern.blinkCode(n)
        let cycle = n * 600 + 1500
        #expect(pattern.period == Self.ms(cycle))
        // n flashes of 300 ms starting every 600 ms, then dark until the cycle repeats.
        var expected: [(Int, Bool)] = []
        for repetition in 0..<2 {
            for flash in 0..<n {
                let start = repetition * cycle + flash * 600
                expected.append((start, true))
                expected.append((start + 300, false))
            }
        }
        let actual = Self.transitions(pattern, to: 2 * cycle)
        #expect(actual.map(\.0) == expected.map(\.0))
        #expect(actual.map(\.1) == expected.map(\.1))
        // Flashes counted in one cycle.
        let flashes = actual.filter { $0.1 && $0.0 < cycle }.count
        #expect(flashes == n)
        Self.expectNextChangesMatch(pattern, to: 2 * cycle + 100)
    }

    @Test func blinkCodeOutOfRangeIsClamped() {
        #expect(LEDPattern.blinkCode(0).cycle.count == LEDPattern.blinkCode(1).cycle.count)
        #expect(LEDPattern.blinkCode(42).period == LEDPattern.blinkCode(9).period)
    }

    @Test func customBlinkAndFlash() {
        let blink = LEDPattern.blink(on: Self.ms(100), off: Self.ms(300))
        #expect(Self.transitions(blink, to: 800).map(\.0) == [0, 100, 400, 500])
        Self.expectNextChangesMatch(blink, to: 1000)
        let flash = LEDPattern.flash(Self.ms(80))
        #expect(flash.level(at: Self.ms(0)) && flash.level(at: Self.ms(79)))
        #expect(!flash.level(at: Self.ms(80)))
        #expect(flash.nextChange(after: Self.ms(10)) == Self.ms(80))
        #expect(flash.nextChange(after: Self.ms(80)) == nil)
    }

    @Test func longRunningTimesStayExact() {
        // After ~115 days the phase is still exact (no floating-point drift).
        let day = 86_400_000
        let t = 115 * day + 300
        #expect(LEDPattern.heartbeat.level(at: Self.ms(t - 300)))
        #expect(!LEDPattern.heartbeat.level(at: Self.ms(t)))
        #expect(LEDPattern.heartbeat.nextChange(after: Self.ms(t)) == Self.ms(t - 300 + 1000))
    }

    @Test("a kernel LED gets one cycle of a repeating pattern, rotated to the player's phase")
    func kernelCycles() {
        let heartbeat = LEDPattern.heartbeat.kernelCycle(at: .zero)
        #expect(heartbeat?.map(\.level) == [true, false, true, false])
        #expect(heartbeat?.map(\.duration) == [Self.ms(100), Self.ms(100), Self.ms(100), Self.ms(700)])
        // 250 ms in: 50 ms of the second beat are left, and the 50 ms already played close the cycle.
        let rotated = LEDPattern.heartbeat.kernelCycle(at: Self.ms(2250))
        #expect(rotated?.map(\.level) == [true, false, true, false, true])
        #expect(rotated?.map(\.duration) == [Self.ms(50), Self.ms(700), Self.ms(100), Self.ms(100), Self.ms(50)])
        // Whatever the phase, the rotated cycle plays the same levels as the pattern from there on.
        for offset in stride(from: 0, to: 3000, by: 37) {
            guard let cycle = LEDPattern.blinkCode(3).kernelCycle(at: Self.ms(offset)) else { Issue.record("no cycle"); return }
            var t = Duration.zero
            for segment in cycle {
                #expect(LEDPattern.blinkCode(3).level(at: Self.ms(offset) + t) == segment.level)
                t += segment.duration
            }
            #expect(t == LEDPattern.blinkCode(3).period)
        }
        // Constants, a one-shot flash and the PWM pulse stay with driftd.
        #expect(LEDPattern.steady.kernelCycle(at: .zero) == nil)
        #expect(LEDPattern.flash(Self.ms(80)).kernelCycle(at: .zero) == nil)
        #expect(LEDPattern.pulse.kernelCycle(at: .zero) == nil)
        #expect(LEDPattern.fastBlink.kernelCycle(at: .zero) != nil)
    }
}
