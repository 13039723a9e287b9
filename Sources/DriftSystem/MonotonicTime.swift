import CDriftSys

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads `CLOCK_MONOTONIC`, the clock the kernel stamps GPIO edge events with.
///
/// Swift's `ContinuousClock` on Linux reads `CLOCK_BOOTTIME`, which drifts from
/// `CLOCK_MONOTONIC` across suspend; use this where times are compared with
/// kernel timestamps.
public enum MonotonicTime {
    /// Time since an arbitrary fixed point (boot, on Linux), excluding suspend.
    public static func now() -> Duration {
        var spec = timespec()
        // CLOCK_MONOTONIC cannot fail with a valid timespec pointer.
        _ = clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }
}

/// Monotonic time as the box's devices see it: ``now`` on the scale of ``MonotonicTime``
/// (the scale GPIO edge events are stamped on), and a sleep until such an instant.
///
/// The devices (buttons, LEDs, sensors) take one, so that their timing is tested on a
/// manual clock: ``init(_:start:)`` wraps any `Clock` (a test's manual clock), ``system``
/// is the real one.
public struct MonotonicClock: Sendable {
    /// The current instant.
    public let now: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void
    /// Calls an action after a delay without a task (a timer wheel's timer); `nil`: a task sleeps.
    private let timer: (@Sendable (Duration, @escaping @Sendable () -> Void) -> @Sendable () -> Void)?

    /// Reads `CLOCK_MONOTONIC` and sleeps on the continuous clock.
    public static let system = MonotonicClock(now: { MonotonicTime.now() }, sleep: { duration in
        try await ContinuousClock().sleep(for: duration)
    })

    /// Time on `clock`, counted from `start` at the moment of creation.
    public init<C: Clock>(_ clock: C, start: Duration = .zero) where C.Duration == Duration {
        let origin = clock.now
        now = { start + origin.duration(to: clock.now) }
        sleeper = { duration in try await clock.sleep(for: duration) }
        timer = nil
    }

    /// Time on any clock, counted from `start` at the moment of creation.
    public init(any clock: any Clock<Duration>, start: Duration = .zero) {
        func make<C: Clock>(_ clock: C) -> MonotonicClock where C.Duration == Duration { MonotonicClock(clock, start: start) }
        self = make(clock)
    }

    /// A clock from its parts. `timer`, when given, calls an action after a delay and returns
    /// what cancels it (``after(_:_:)``); without it a task sleeps on `sleep`.
    public init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void,
                timer: (@Sendable (Duration, @escaping @Sendable () -> Void) -> @Sendable () -> Void)? = nil) {
        self.now = now
        sleeper = sleep
        self.timer = timer
    }

    /// Calls `action` once `delay` has passed, unless the returned closure cancels it first. On
    /// a timer wheel's clock this is a timer, not a task that sleeps: the action runs on the
    /// wheel's thread and wakes no other.
    public func after(_ delay: Duration, _ action: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        if let timer { return timer(delay, action) }
        let task = Task { [sleeper] in
            do {
                try await sleeper(delay)
                action()
            } catch {}
        }
        return { task.cancel() }
    }

    /// Sleeps until `deadline` (returns at once when it passed). Throws `CancellationError`.
    public func sleep(until deadline: Duration) async throws {
        let delay = deadline - now()
        if delay > .zero {
            try await sleeper(delay)
        } else {
            try Task.checkCancellation()
        }
    }

    /// Sleeps for `duration`. Throws `CancellationError`.
    public func sleep(for duration: Duration) async throws {
        try await sleeper(duration)
    }
}
