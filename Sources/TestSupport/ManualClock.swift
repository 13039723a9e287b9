import Synchronization

/// A `Clock` that stands still until the test moves it.
///
/// `sleep(until:)` suspends until ``advance(by:)`` or ``advance(to:)`` moves
/// ``now`` to or past the deadline (or the sleeping task is cancelled, which
/// throws `CancellationError`). ``waitForSleepers(_:)`` lets a test wait until
/// the code under test is actually asleep before advancing, so no real time
/// or polling is involved.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual clock: the time since the clock's zero.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Instant
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Sleeps that ever began waiting (not those that were already due).
        var sleepsBegun = 0
        var begunWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Takes the waiters satisfied by the current number of sleepers and of sleeps begun.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            let ready = sleeperWaiters.filter { $0.count <= sleepers.count }
            sleeperWaiters.removeAll { $0.count <= sleepers.count }
            let begun = begunWaiters.filter { $0.count <= sleepsBegun }
            begunWaiters.removeAll { $0.count <= sleepsBegun }
            return ready.map(\.continuation) + begun.map(\.continuation)
        }
    }

    private let state: Mutex<State>

    /// - Parameter start: the initial ``now`` (default zero).
    public init(start: Instant = Instant(offset: .zero)) {
        state = Mutex(State(now: start))
    }

    public var now: Instant {
        state.withLock { $0.now }
    }

    public var minimumResolution: Duration { .zero }

    /// Number of tasks currently sleeping on this clock.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case asleep([CheckedContinuation<Void, Never>]), wake, cancel }
                let outcome = state.withLock { state -> Outcome in
                    if state.cancelled.remove(id) != nil { return .cancel }
                    if deadline <= state.now { return .wake }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    state.sleepsBegun += 1
                    return .asleep(state.satisfiedWaiters())
                }
                switch outcome {
                case .asleep(let waiters): waiters.forEach { $0.resume() }
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves ``now`` forward by `duration` and wakes every sleeper whose deadline passed.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "ManualClock cannot go backwards")
        let target = state.withLock { $0.now.advanced(by: duration) }
        advance(to: target)
    }

    /// Moves ``now`` to `instant` (if later) and wakes every sleeper whose deadline passed.
    public func advance(to instant: Instant) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            if instant > state.now { state.now = instant }
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.sorted { $0.value.deadline < $1.value.deadline }.map(\.value.continuation)
        }
        woken.forEach { $0.resume() }
    }

    /// The earliest deadline any task sleeps until; `nil` when none sleeps.
    public var nextDeadline: Instant? {
        state.withLock { $0.sleepers.values.map(\.deadline).min() }
    }

    /// Moves ``now`` to the earliest deadline a task sleeps until (if any) and wakes it.
    public func advanceToNextDeadline() {
        if let next = nextDeadline { advance(to: next) }
    }

    /// How many sleeps ever began waiting on this clock (a sleep already due is not counted).
    public var sleepsBegun: Int {
        state.withLock { $0.sleepsBegun }
    }

    /// Returns once at least `count` sleeps have begun waiting since the clock was made:
    /// read ``sleepsBegun`` before poking the code under test, then wait for one more to know
    /// that it went back to sleep (so whatever it does before sleeping is done).
    public func waitForSleepsBegun(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepsBegun >= count { return true }
                state.begunWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Moves time forward one sleeper's deadline at a time — each time the code under test is
    /// asleep — until `done()` holds: virtual time for a service loop, as fast as the CPU allows.
    /// - Returns: whether `done()` held within `steps` moves.
    @discardableResult
    public func run(until done: () async throws -> Bool, steps: Int = 10_000) async rethrows -> Bool {
        for _ in 0..<steps {
            await waitForSleepers(1)
            if try await done() { return true }
            advanceToNextDeadline()
        }
        return try await done()
    }

    /// Returns once at least `count` tasks are sleeping on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
