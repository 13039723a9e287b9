import Dispatch
import DriftSystem
import Synchronization

/// Timeouts for ``ReadinessMonitor`` and ``WritabilityMonitor`` that fire only when the test
/// moves time (``advance(by:)``): a timed wait is tested without waiting for real.
///
/// Hand ``timeouts`` to the monitor. A timeout that comes due is handed to the monitor's queue
/// inside ``advance(by:)``, so anything the test then does on that queue (``ReadinessMonitor/isWaiting``)
/// sees it done. ``waitForScheduled(_:)`` returns once a wait has armed its timeout.
public final class ManualWaitTimeouts: Sendable {
    private struct Pending {
        var due: Duration
        var queue: DispatchQueue
        var work: @Sendable () -> Void
    }

    private struct State {
        var now: Duration = .zero
        var pending: [Pending] = []
        var scheduled = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// What the monitors take.
    public var timeouts: WaitTimeouts {
        WaitTimeouts { [self] timeout, queue, work in
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.pending.append(Pending(due: state.now + max(.zero, timeout), queue: queue, work: work))
                state.scheduled += 1
                let ready = state.waiters.filter { $0.count <= state.scheduled }
                state.waiters.removeAll { $0.count <= state.scheduled }
                return ready.map(\.continuation)
            }
            ready.forEach { $0.resume() }
        }
    }

    /// Timeouts ever scheduled.
    public var scheduled: Int { state.withLock { $0.scheduled } }

    /// Moves time forward by `duration` and hands every timeout now due to its monitor's queue,
    /// earliest first.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "time does not go backwards")
        let due = state.withLock { state -> [Pending] in
            state.now += duration
            let now = state.now
            let due = state.pending.filter { $0.due <= now }
            state.pending.removeAll { $0.due <= now }
            return due.sorted { $0.due < $1.due }
        }
        for timeout in due { timeout.queue.async(execute: timeout.work) }
    }

    /// Returns once at least `count` timeouts have been scheduled since this was made.
    public func waitForScheduled(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.scheduled >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
