import Dispatch

/// How a monitor's timed wait (``ReadinessMonitor/readable(timeout:)``,
/// ``WritabilityMonitor/writable(timeout:)``) learns that its time ran out: ``dispatch``, a
/// timer on the monitor's own queue (what the daemon runs), or a schedule a test moves by hand
/// (`ManualWaitTimeouts` in TestSupport), so the timeouts are tested without waiting for real.
///
/// `schedule(timeout, queue, work)` runs `work` on `queue` once `timeout` has passed; the
/// monitor's `work` does nothing when the wait it was for ended meanwhile.
public struct WaitTimeouts: Sendable {
    public typealias Schedule = @Sendable (_ timeout: Duration, _ queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) -> Void

    let schedule: Schedule

    public init(schedule: @escaping Schedule) {
        self.schedule = schedule
    }

    /// A Dispatch timer on the monitor's queue: no task and no thread of its own.
    public static let dispatch = WaitTimeouts { timeout, queue, work in
        queue.asyncAfter(deadline: .now() + dispatchInterval(timeout), execute: work)
    }

    /// `duration` as Dispatch counts it (nanoseconds; negative as zero).
    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let components = duration.components
        let nanoseconds = max(0, components.seconds) * 1_000_000_000 + components.attoseconds / 1_000_000_000
        return .nanoseconds(Int(clamping: nanoseconds))
    }
}
