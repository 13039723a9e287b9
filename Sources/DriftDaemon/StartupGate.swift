import Synchronization

/// Something start-up waits for once (the visitor page listening) before `READY=1`.
///
/// ``open()`` may come before or after ``wait(atMost:clock:)``. A gate that never opens (the
/// port is taken: the `http` fault) lets the waiter go after `atMost` on the given clock, so the
/// box still reports ready and systemd does not restart it over a listen problem it retries by
/// itself; a cancelled waiter (shutdown during start-up) goes at once.
public final class StartupGate: Sendable {
    private struct State {
        var opened = false
        var nextID = 0
        var parked: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Lets every waiter go, now and later.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.opened = true
            defer { state.parked = [:] }
            return Array(state.parked.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    public var isOpen: Bool { state.withLock { $0.opened } }

    /// Returns when the gate opens, after `limit` on `clock`, or when the task is cancelled
    /// (`true`: it opened).
    @discardableResult
    public func wait<C: Clock>(atMost limit: Duration, clock: C) async -> Bool where C.Duration == Duration {
        if isOpen { return true }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.opening() }
            group.addTask { try? await clock.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
        return isOpen
    }

    /// Returns when the gate opens or the task is cancelled (as ``Doorbell``'s wait for its ring,
    /// for any number of waiters).
    private func opening() async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Cancelled before parking: the handler below found nothing to resume.
                let goNow = state.withLock { state -> Bool in
                    if state.opened || Task.isCancelled { return true }
                    state.parked[id] = continuation
                    return false
                }
                if goNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.parked.removeValue(forKey: id) }?.resume()
        }
    }
}
