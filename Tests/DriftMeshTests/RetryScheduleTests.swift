import DriftMesh
import TestSupport
import Testing

@Suite("Outbox retry schedule")
struct RetryScheduleTests {
    /// 30 s × 1.5ⁿ for n = 0…9, exactly.
    static let expected: [Duration] = [
        .seconds(30), .seconds(45), .milliseconds(67_500), .milliseconds(101_250),
        .microseconds(151_875_000), .microseconds(227_812_500), .microseconds(341_718_750),
        .microseconds(512_578_125), .nanoseconds(768_867_187_500), .nanoseconds(1_153_300_781_250),
    ]

    @Test("the standard schedule: 10 exact delays, 30 s × 1.5ⁿ")
    func exactDelays() {
        let schedule = RetrySchedule.standard
        #expect(schedule.maxAttempts == 10)
        #expect(schedule.delays == Self.expected)
        for (attempt, delay) in Self.expected.enumerated() {
            #expect(schedule.delay(afterAttempt: attempt) == delay)
        }
    }

    @Test("cumulative: 60 s × (1.5¹⁰ − 1) = 3399.90234375 s until failed")
    func cumulative() {
        #expect(RetrySchedule.standard.totalDuration == .nanoseconds(3_399_902_343_750))
        var running = Duration.zero
        var cumulative: [Duration] = []
        for delay in Self.expected {
            running += delay
            cumulative.append(running)
        }
        #expect(cumulative[0] == .seconds(30))
        #expect(cumulative[1] == .seconds(75))
        #expect(cumulative[2] == .milliseconds(142_500))
        #expect(cumulative[9] == RetrySchedule.standard.totalDuration)
    }

    @Test("no delay outside 0..<maxAttempts; exhausted at 10")
    func bounds() {
        let schedule = RetrySchedule.standard
        #expect(schedule.delay(afterAttempt: -1) == nil)
        #expect(schedule.delay(afterAttempt: 10) == nil)
        #expect(!schedule.isExhausted(attempts: 9))
        #expect(schedule.isExhausted(attempts: 10))
        #expect(schedule.isExhausted(attempts: 11))
    }

    @Test("a custom schedule: 2 s doubling, 3 attempts")
    func custom() {
        let schedule = RetrySchedule(initialDelay: .seconds(2), growthNumerator: 2, growthDenominator: 1, maxAttempts: 3)
        #expect(schedule.delays == [.seconds(2), .seconds(4), .seconds(8)])
        #expect(schedule.totalDuration == .seconds(14))
    }

    @Test("jitter stays within [delay, delay × 1.1] and is reproducible from the seed")
    func jitter() {
        let schedule = RetrySchedule.standard
        var first = SeededGenerator(seed: 7)
        var second = SeededGenerator(seed: 7)
        var sawExtra = false
        for delay in Self.expected {
            let a = schedule.jittered(delay, using: &first)
            let b = schedule.jittered(delay, using: &second)
            #expect(a == b)
            #expect(a >= delay)
            #expect(a <= delay + delay / 10)
            if a > delay { sawExtra = true }
        }
        #expect(sawExtra)
        var generator = SeededGenerator(seed: 1)
        #expect(schedule.jittered(.seconds(30), fraction: 0, using: &generator) == .seconds(30))
    }

    @Test("seconds(_:) converts exactly for the schedule's values")
    func seconds() {
        #expect(RetrySchedule.seconds(.milliseconds(67_500)) == 67.5)
        #expect(RetrySchedule.seconds(.nanoseconds(1_153_300_781_250)) == 1153.30078125)
    }
}
