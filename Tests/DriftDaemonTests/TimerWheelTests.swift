@testable import DriftDaemon
import DriftSystem
import Foundation
import ServiceLifecycle
import Synchronization
import Testing

/// The timer wheel (``TimerWheel``): its schedule on given instants, and its thread on a time
/// the test moves (timers due at once, cancellation, time moved past a sleep), never by waiting
/// for time to pass.
@Suite("Timer wheel", .serialized)
struct TimerWheelTests {
    /// The wheel's time, moved by the tests.
    static let time = ManualTime()
    /// One wheel for the suite (serialized: tests count its timers), on that time: a wheel's
    /// thread lives as long as the process, as in the daemon.
    static let wheel = TimerWheel(name: "test-timers", manualTime: { time.now })

    final class ManualTime: Sendable {
        private let instant = Mutex(Duration.seconds(1_000))
        var now: Duration { instant.withLock { $0 } }
        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    }

    /// Waits until the wheel holds `count` timers (a state, not a time; bounded, so that a timer
    /// that never comes fails the test instead of spinning).
    static func waitForTimers(_ count: Int) async {
        let limit = ContinuousClock.now + .seconds(30)
        while wheel.pendingTimers != count, ContinuousClock.now < limit { await Task.yield() }
        #expect(wheel.pendingTimers == count)
    }

    /// The calling thread's kernel name.
    static func threadName() -> String {
        (try? OSThreads.currentID()).flatMap(OSThreads.name(of:)) ?? "?"
    }

    private static func recorder() -> (record: @Sendable (String) -> @Sendable () -> Void, fired: @Sendable () -> [String]) {
        let log = Mutex<[String]>([])
        return ({ name in { log.withLock { $0.append(name) } } }, { log.withLock { $0 } })
    }

    @Test("timers whose windows overlap fire in one wake, at the earliest latest instant")
    func coalescing() {
        var schedule = TimerSchedule()
        let (record, fired) = Self.recorder()
        // A 30 s liveness beat with 1 s of tolerance, another loop's beat 400 ms later, and a
        // GPS fix due 10 s later.
        _ = schedule.add(earliest: .seconds(30), latest: .seconds(31), fire: record("heartbeat"))
        _ = schedule.add(earliest: .milliseconds(30_400), latest: .milliseconds(31_400), fire: record("housekeeping"))
        _ = schedule.add(earliest: .seconds(40), latest: .milliseconds(40_500), fire: record("gps"))
        #expect(schedule.wakeInstant == .seconds(31))
        // Woken early (a job came in) before either may fire: nothing fires.
        for fire in schedule.takeDue(at: .seconds(29)) { fire() }
        #expect(fired().isEmpty)
        // At the wake instant both beats fire together, in the order of their deadlines.
        for fire in schedule.takeDue(at: .seconds(31)) { fire() }
        #expect(fired() == ["heartbeat", "housekeeping"])
        #expect(schedule.wakeInstant == .milliseconds(40_500))
        for fire in schedule.takeDue(at: .milliseconds(40_500)) { fire() }
        #expect(fired() == ["heartbeat", "housekeeping", "gps"])
        #expect(schedule.wakeInstant == nil)
    }

    @Test("a timer that is awake anyway fires inside its window; a cancelled one never does")
    func opportunisticAndCancelled() {
        var schedule = TimerSchedule()
        let (record, fired) = Self.recorder()
        let early = schedule.add(earliest: .seconds(10), latest: .seconds(11), fire: record("early"))
        let late = schedule.add(earliest: .seconds(10) + .milliseconds(500), latest: .seconds(12), fire: record("late"))
        let cancelled = schedule.add(earliest: .seconds(10), latest: .seconds(10), fire: record("cancelled"))
        let removed = schedule.cancel(cancelled.id)
        let removedAgain = schedule.cancel(cancelled.id)
        #expect(removed && !removedAgain)
        #expect(schedule.wakeInstant == .seconds(11))
        for fire in schedule.takeDue(at: .seconds(11)) { fire() }
        #expect(fired() == ["early", "late"])
        let firedCancelled = (schedule.cancel(early.id), schedule.cancel(late.id))
        #expect(firedCancelled == (false, false))
        #expect(schedule.count == 0)
    }

    @Test("default tolerance: 1/20 of a sleep of a second or more, at most 1 s; none below a second")
    func defaultTolerance() {
        #expect(TimerWheel.defaultTolerance(for: .milliseconds(250)) == .zero)
        #expect(TimerWheel.defaultTolerance(for: .milliseconds(999)) == .zero)
        #expect(TimerWheel.defaultTolerance(for: .seconds(1)) == .milliseconds(50))
        #expect(TimerWheel.defaultTolerance(for: .seconds(10)) == .milliseconds(500))
        #expect(TimerWheel.defaultTolerance(for: .seconds(30)) == .seconds(1))
        #expect(TimerWheel.defaultTolerance(for: .seconds(3_600)) == .seconds(1))
    }

    @Test("a timer due now fires on the wheel's thread")
    func firesOnItsThread() async {
        let name = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            Self.wheel.schedule(after: .zero) { continuation.resume(returning: TimerWheelTests.threadName()) }
        }
        #expect(name == "test-timers")
    }

    @Test("a cancelled sleep ends at once with CancellationError and leaves no timer behind")
    func cancelledSleep() async {
        let before = Self.wheel.pendingTimers
        let sleeper = Task { try await Self.wheel.sleep(for: .seconds(3_600)) }
        await Self.waitForTimers(before + 1)
        sleeper.cancel()
        let result = await sleeper.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(Self.wheel.pendingTimers == before)
        // A task cancelled before it sleeps does not sleep at all.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await Self.wheel.sleep(for: .seconds(3_600))
        }
        let earlyResult = await early.result
        #expect(throws: CancellationError.self) { try earlyResult.get() }
        #expect(Self.wheel.pendingTimers == before)
    }

    @Test("a sleep ends when its time has come, not before")
    func sleepEndsWhenTimeMoves() async throws {
        let before = Self.wheel.pendingTimers
        let sleeper = Task { try await Self.wheel.sleep(for: .seconds(30), tolerance: .zero) }
        await Self.waitForTimers(before + 1)
        Self.time.advance(by: .seconds(29))
        Self.wheel.timeMoved()
        // A timer due now makes the thread judge every timer at 29 s: the sleep's is not due.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Self.wheel.schedule(after: .zero) { continuation.resume() }
        }
        #expect(Self.wheel.pendingTimers == before + 1)
        Self.time.advance(by: .seconds(1))
        Self.wheel.timeMoved()
        try await sleeper.value
        #expect(Self.wheel.pendingTimers == before)
    }

    @Test("the wheel's clocks: a passed deadline returns at once; a timer runs its action on the wheel unless cancelled")
    func clock() async throws {
        let clock = Self.wheel.clock
        let fired = Self.wheel.counts.fired
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)), tolerance: nil)
        #expect(Self.wheel.counts.fired > fired)
        let monotonic = Self.wheel.monotonicClock
        let ran = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            _ = monotonic.after(.zero) { continuation.resume(returning: true) }
        }
        #expect(ran)
        // A cancelled `after` never runs its action, and its timer is gone.
        let before = Self.wheel.pendingTimers
        let cancel = monotonic.after(.seconds(3_600)) { Issue.record("a cancelled timer ran") }
        #expect(Self.wheel.pendingTimers == before + 1)
        cancel()
        #expect(Self.wheel.pendingTimers == before)
    }

    @Test("a service run on the wheel (OnExecutor) runs its steps and its child tasks on the wheel's thread")
    func serviceOnTheWheel() async throws {
        final class Seen: Sendable {
            let names = Mutex<[String]>([])
            func append(_ name: String) { names.withLock { $0.append(name) } }
        }
        struct Probe: Service {
            let seen: Seen
            func run() async throws {
                seen.append(TimerWheelTests.threadName())
                // Suspended, and resumed by a timer that fires on the wheel's thread.
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    TimerWheelTests.wheel.schedule(after: .zero) { continuation.resume() }
                }
                seen.append(TimerWheelTests.threadName())
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { seen.append(TimerWheelTests.threadName()) }
                }
            }
        }
        let probe = Probe(seen: Seen())
        try await OnExecutor(probe, executor: Self.wheel).run()
        #expect(probe.seen.names.withLock { $0 } == ["test-timers", "test-timers", "test-timers"])
    }
}
