import Testing
import TestSupport

@Suite("ManualClock")
struct GPIOManualClockTests {
    @Test("sleep resumes only once the clock is advanced past the deadline")
    func sleepUntilAdvanced() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(5)), tolerance: nil) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await gpioAwait(sleeper)
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == ManualClock.Instant(offset: .seconds(5)))
    }

    @Test("a deadline already passed returns at once")
    func pastDeadline() async throws {
        let clock = ManualClock(start: .init(offset: .seconds(10)))
        try await clock.sleep(until: .init(offset: .seconds(3)), tolerance: nil)
        #expect(clock.sleeperCount == 0)
    }

    @Test("sleepers wake in deadline order and only when due")
    func severalSleepers() async throws {
        let clock = ManualClock()
        let short = Task { try await clock.sleep(for: .milliseconds(10)) }
        let long = Task { try await clock.sleep(for: .milliseconds(30)) }
        await clock.waitForSleepers(2)
        clock.advance(to: .init(offset: .milliseconds(20)))
        try await gpioAwait(short)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(10))
        try await gpioAwait(long)
    }

    @Test("cancelling a sleeper throws CancellationError, before or during the sleep")
    func cancellation() async throws {
        let clock = ManualClock()
        let sleeping = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.waitForSleepers(1)
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await gpioAwait(sleeping) }
        #expect(clock.sleeperCount == 0)

        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await gpioAwait(early) }
    }

    @Test("works with Clock-generic code")
    func genericUse() async throws {
        let clock = ManualClock()
        func measure<C: Clock>(_ clock: C) async throws -> C.Duration {
            try await clock.measure { try await clock.sleep(for: clock.minimumResolution) }
        }
        _ = try await measure(clock)
        #expect(clock.now.duration(to: clock.now.advanced(by: .seconds(2))) == .seconds(2))
    }
}
