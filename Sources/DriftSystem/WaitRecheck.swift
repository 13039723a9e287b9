import Dispatch
import Synchronization

/// The safety net under ``ReadinessMonitor`` and ``WritabilityMonitor``: a wait that has
/// lasted ``interval`` without its dispatch source firing checks the descriptor itself with a
/// non-blocking `poll(2)`, and again every interval while it waits.
///
/// libdispatch keys its epoll registrations by descriptor number and changes them from its
/// own threads; a registration lost in its races (a descriptor closed and its number reused
/// while a source still refers to it, or a delete that comes late — both seen in traces of the
/// test suite) leaves a source that never fires. Without this a wait with no deadline (a
/// serial port waiting for its device) would then hang for good, deaf even to a hang-up;
/// with it such a wait ends at most one interval late, and ``rescuedWaits`` counts it
/// (`driftd_readiness_rescued_waits`). At most one timer runs per monitor, only while a wait
/// lasts longer than the interval.
///
/// Confined to the owning monitor's queue, like the rest of its state.
struct WaitRecheck {
    private static let rescued = Mutex(0)

    /// Waits a recheck found ready while their source had not fired, since the process started.
    static var rescuedWaits: Int { rescued.withLock { $0 } }

    let interval: Duration
    private var armedAt: DispatchTime?
    private var timerPending = false

    init(interval: Duration) {
        precondition(interval > .zero, "a recheck interval must be positive")
        self.interval = interval
    }

    /// A wait was armed with `timeout` (`nil`: none). Returns when to run ``due(ready:)``, if a
    /// timer is needed and none is pending: a wait whose own timeout comes first ends (and is
    /// re-armed with a fresh poll by its caller) without one.
    mutating func armed(timeout: Duration?, now: DispatchTime = .now()) -> DispatchTime? {
        armedAt = now
        if let timeout, timeout <= interval { return nil }
        guard !timerPending else { return nil }
        timerPending = true
        return now + Self.dispatchInterval(interval)
    }

    /// The wait ended (woken, timed out, cancelled or closed).
    mutating func ended() {
        armedAt = nil
    }

    enum Decision: Equatable {
        /// No wait is armed (or it is too young): nothing to do, or run again at that time.
        case idle, again(DispatchTime)
        /// The descriptor is ready and the source did not say so: end the wait as ready.
        case rescue
    }

    /// The timer fired; `ready` polls the descriptor (non-blocking) when a check is due.
    mutating func due(now: DispatchTime = .now(), ready: () -> Bool) -> Decision {
        timerPending = false
        guard let armedAt else { return .idle }
        let checkAt = armedAt + Self.dispatchInterval(interval)
        timerPending = true
        if now < checkAt { return .again(checkAt) }
        if ready() {
            timerPending = false
            Self.rescued.withLock { $0 += 1 }
            return .rescue
        }
        return .again(now + Self.dispatchInterval(interval))
    }

    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let components = duration.components
        let nanoseconds = max(0, components.seconds) * 1_000_000_000 + components.attoseconds / 1_000_000_000
        return .nanoseconds(Int(clamping: nanoseconds))
    }
}
