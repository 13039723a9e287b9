import DriftSystem
import Foundation
import ServiceLifecycle

/// The daemon's one timer thread: every periodic loop of an idle box sleeps on it, and the
/// loops it wakes run on it.
///
/// A sleep on Swift's default clocks is a Dispatch timer: when it fires, Dispatch's manager
/// thread wakes a worker of the cooperative pool (one that exited after 5 s idle is started
/// again, with a spare beside it) to resume the sleeper, which then hops to its actor's thread.
/// An idle box paid that for every loop's every wake. On the wheel:
///
/// - **One thread waits for the earliest timer** (a ``MonotonicCondition``), fires every
///   timer that is due, and runs the jobs the firing queued.
/// - **Timers coalesce.** A sleep may end up to its tolerance late (by default 1/20 of its
///   length, at most 1 s, for sleeps of a second or more): the thread wakes at the earliest
///   *latest* instant and then fires every timer whose deadline has come, so loops with
///   similar periods share one wake instead of drifting apart into several.
/// - **It is a task executor.** A service run under `withTaskExecutorPreference(wheel)`
///   (``OnExecutor``) resumes on this thread, not on the pool: nonisolated code of those
///   loops runs here, and calls into actors with their own threads (the bottle processor, the
///   mesh node) hop there and back without waking a pool worker.
///
/// Only short work belongs here: the loops' own steps and hops. A blocking call on the wheel
/// delays every other loop's timers (and the watchdog pings that sleep on it), as it would hold
/// a pool thread; storage still runs on the executors made for it.
///
/// ``WheelClock`` is the `Clock` that sleeps on a wheel; services take it where tests inject a
/// manual clock.
public final class TimerWheel: TaskExecutor, @unchecked Sendable {
    /// What the wheel has done since it started (for tests).
    public struct Counters: Sendable, Equatable {
        /// Times the thread woke from a wait (a timer due, a job queued, a new earlier timer).
        public var wakes = 0
        /// Timers fired.
        public var fired = 0
        /// Jobs run.
        public var jobs = 0
    }

    public let name: String
    private let condition = MonotonicCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var timers = TimerSchedule()
    /// Whether the thread waits, and until when (`nil`: until signalled).
    private var waiting = false
    private var waitingUntil: Duration?
    private var counters = Counters()

    /// The time timers are set and judged on (``MonotonicTime``'s scale on a box).
    private let now: @Sendable () -> Duration
    /// Time moves only when the owner says so (``timeMoved()``): the thread waits for that, not
    /// for the clock.
    private let manualTime: Bool

    /// Starts the wheel's thread, named `name`. It runs for the life of the process (the
    /// daemon has one wheel).
    public convenience init(name: String = "timers") {
        self.init(name: name, now: { MonotonicTime.now() }, manualTime: false)
    }

    /// A wheel on a time the caller moves (tests): timers are judged on `now()`, and the thread
    /// looks again only when ``timeMoved()`` says so.
    convenience init(name: String, manualTime now: @escaping @Sendable () -> Duration) {
        self.init(name: name, now: now, manualTime: true)
    }

    private init(name: String, now: @escaping @Sendable () -> Duration, manualTime: Bool) {
        self.name = name
        self.now = now
        self.manualTime = manualTime
        let thread = Thread { [self] in runLoop() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The clock that sleeps on this wheel.
    public var clock: WheelClock { WheelClock(wheel: self) }

    /// The devices' clock (``MonotonicClock``'s scale) sleeping on this wheel.
    public var monotonicClock: MonotonicClock {
        MonotonicClock(
            now: now, sleep: { [self] delay in try await sleep(for: delay) },
            timer: { [self] delay, action in
                let id = schedule(after: delay, action)
                return { [self] in cancel(id) }
            })
    }

    public var counts: Counters { condition.withLock { counters } }

    /// The number of timers waiting (for tests).
    public var pendingTimers: Int { condition.withLock { timers.count } }

    // MARK: Executor

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wake = condition.withLock {
            jobs.append(job)
            return waiting
        }
        // Signalled after the unlock: a thread woken under the lock would at once block on it.
        if wake { condition.signal() }
    }

    // MARK: Timers

    /// Calls `fire` on the wheel's thread once `delay` (on ``MonotonicTime``'s scale) has passed,
    /// at most `tolerance` later (`nil`: the default, ``defaultTolerance(for:)``). Returns the
    /// timer's id for ``cancel(_:)``.
    @discardableResult
    public func schedule(after delay: Duration, tolerance: Duration? = nil, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        let start = now()
        let delay = max(delay, .zero)
        let slack = max(tolerance ?? Self.defaultTolerance(for: delay), .zero)
        let (id, wake) = condition.withLock {
            let (id, latest) = timers.add(earliest: start + delay, latest: start + delay + slack, fire: fire)
            // Wake the thread only when it would otherwise sleep past this timer's latest instant.
            return (id, waiting && waitingUntil.map { latest < $0 } ?? true)
        }
        if wake { condition.signal() }
        return id
    }

    /// Removes a timer that has not fired; `false` when it fired already (or never existed).
    @discardableResult
    public func cancel(_ id: UInt64) -> Bool {
        condition.withLock { timers.cancel(id) }
    }

    /// How late a sleep of `delay` may end so that it shares a wake with others: 1/20 of it, at
    /// most a second, for sleeps of a second or more; none for shorter ones (LED blinks, radio
    /// timings keep their precision).
    public static func defaultTolerance(for delay: Duration) -> Duration {
        delay < .seconds(1) ? .zero : min(delay / 20, .seconds(1))
    }

    /// Sleeps `delay` on the wheel. Throws `CancellationError` when the task is cancelled
    /// (at once; the timer is removed).
    public func sleep(for delay: Duration, tolerance: Duration? = nil) async throws {
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard sleeper.install(continuation) else { return }
                let id = schedule(after: delay, tolerance: tolerance) { sleeper.finish(nil) }
                if !sleeper.setTimer(id) { cancel(id) }
            }
        } onCancel: {
            if let id = sleeper.finish(CancellationError()) { cancel(id) }
        }
    }

    /// Makes the thread judge its timers again (a manual time moved).
    func timeMoved() {
        let wake = condition.withLock { waiting }
        if wake { condition.signal() }
    }

    // MARK: The thread

    private func runLoop() {
        Thread.current.name = name
        ThreadName.setCurrent(name)
        condition.lock()
        while true {
            // Fire whatever may fire now: everything whose earliest instant has come, so that
            // timers close together share this wake.
            let due = timers.takeDue(at: now())
            if !due.isEmpty || !jobs.isEmpty {
                let batch = jobs
                jobs.removeAll(keepingCapacity: true)
                counters.fired += due.count
                counters.jobs += batch.count
                condition.unlock()
                for fire in due { fire() }
                for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
                condition.lock()
                continue
            }
            waiting = true
            if !manualTime, let until = timers.wakeInstant {
                waitingUntil = until
                condition.wait(until: until)
            } else {
                waitingUntil = nil
                condition.wait()
            }
            waiting = false
            waitingUntil = nil
            counters.wakes += 1
        }
    }
}

/// The wheel's timers, and when to wake for them: pure bookkeeping on instants of
/// ``MonotonicTime``'s scale, tested on given instants.
///
/// Each timer may fire anywhere between its `earliest` and `latest` instant. The thread waits
/// until the earliest `latest` (``wakeInstant``) and then takes every timer whose `earliest` has
/// come (``takeDue(at:)``): timers whose windows overlap share one wake.
struct TimerSchedule {
    private struct Timer {
        var id: UInt64
        var earliest: Duration
        var latest: Duration
        var fire: @Sendable () -> Void
    }

    private var timers: [Timer] = []
    private var nextID: UInt64 = 0

    var count: Int { timers.count }

    /// Adds a timer; returns its id and its latest instant.
    mutating func add(earliest: Duration, latest: Duration, fire: @escaping @Sendable () -> Void) -> (id: UInt64, latest: Duration) {
        nextID += 1
        let latest = max(latest, earliest)
        timers.append(Timer(id: nextID, earliest: earliest, latest: latest, fire: fire))
        return (nextID, latest)
    }

    /// Removes a timer; `false` when it is not here (fired, or cancelled already).
    mutating func cancel(_ id: UInt64) -> Bool {
        guard let index = timers.firstIndex(where: { $0.id == id }) else { return false }
        timers.remove(at: index)
        return true
    }

    /// When the thread must wake at the latest: the earliest of the timers' latest instants
    /// (`nil`: no timer).
    var wakeInstant: Duration? { timers.map(\.latest).min() }

    /// Removes and returns, in the order of their earliest instants, the actions of every timer
    /// that may fire at `now`.
    mutating func takeDue(at now: Duration) -> [@Sendable () -> Void] {
        var due: [Timer] = []
        timers.removeAll { timer in
            guard timer.earliest <= now else { return false }
            due.append(timer)
            return true
        }
        return due.sorted { ($0.earliest, $0.id) < ($1.earliest, $1.id) }.map(\.fire)
    }
}

/// One sleep on the wheel: resumed once, by its timer or by cancellation, whichever comes first.
private final class Sleeper: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, any Error>?
    private var timer: UInt64?
    /// Set once resumed (or cancelled before the continuation was installed).
    private var done = false
    private var pendingError: (any Error)?

    /// Keeps the continuation; `false` (and resumes it with the cancellation) when the task was
    /// cancelled first.
    func install(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        lock.lock()
        if done {
            lock.unlock()
            continuation.resume(throwing: pendingError ?? CancellationError())
            return false
        }
        self.continuation = continuation
        lock.unlock()
        return true
    }

    /// Records the timer; `false` when the sleep ended meanwhile (the caller cancels it).
    func setTimer(_ id: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if done { return false }
        timer = id
        return true
    }

    /// Resumes the sleeper (normally with `error == nil`); returns the timer to cancel when
    /// this ended it early.
    @discardableResult
    func finish(_ error: (any Error)?) -> UInt64? {
        lock.lock()
        if done {
            lock.unlock()
            return nil
        }
        done = true
        pendingError = error
        let continuation = self.continuation
        self.continuation = nil
        let timer = self.timer
        lock.unlock()
        if let continuation {
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
        return timer
    }
}

/// A `Clock` whose sleeps are timers on a ``TimerWheel`` (the daemon's production clock for its
/// periodic loops). Its instants are the continuous clock's.
public struct WheelClock: Clock {
    public typealias Duration = Swift.Duration
    public typealias Instant = ContinuousClock.Instant

    public let wheel: TimerWheel

    public init(wheel: TimerWheel) {
        self.wheel = wheel
    }

    public var now: Instant { ContinuousClock.now }

    public var minimumResolution: Duration { ContinuousClock().minimumResolution }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await wheel.sleep(for: ContinuousClock.now.duration(to: deadline), tolerance: tolerance)
    }
}

/// Runs a service with `executor` as its preferred task executor: its loops' nonisolated steps,
/// and its child tasks', run on that executor's thread instead of the pool. The daemon runs its
/// own periodic loops on the ``TimerWheel`` and the mesh's loops on the mesh node's thread, so
/// that a wake-up and the calls it makes stay on the thread they need.
public struct OnExecutor: Service {
    let service: any Service
    let executor: any TaskExecutor

    public init(_ service: any Service, executor: any TaskExecutor) {
        self.service = service
        self.executor = executor
    }

    public func run() async throws {
        try await withTaskExecutorPreference(executor) {
            try await service.run()
        }
    }
}
