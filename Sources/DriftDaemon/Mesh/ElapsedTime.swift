/// Time since a fixed start on an injected clock, as plain durations.
///
/// The mesh keeps its timers as offsets (``MeshNode/monotonicNow``, the router's and the
/// transmit queue's deadlines); this reads them off any `Clock<Duration>` — the continuous
/// clock in production, a manual one in tests — and sleeps until one.
struct ElapsedTime: Sendable {
    /// The clock the offsets are read from.
    let clock: any Clock<Duration>
    private let elapsed: @Sendable () -> Duration
    private let sleepUntil: @Sendable (Duration) async throws -> Void

    /// Starts counting at `clock.now`.
    init(_ clock: any Clock<Duration>) {
        self.clock = clock
        (elapsed, sleepUntil) = Self.measure(clock)
    }

    private static func measure<C: Clock>(_ clock: C) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void)
    where C.Duration == Duration {
        let start = clock.now
        return ({ start.duration(to: clock.now) }, { try await clock.sleep(until: start.advanced(by: $0), tolerance: nil) })
    }

    /// The time since the start.
    var now: Duration { elapsed() }

    /// Sleeps until `offset` after the start (returns at once when it has passed); throws
    /// `CancellationError` when the task is cancelled.
    func sleep(until offset: Duration) async throws {
        try await sleepUntil(offset)
    }
}
