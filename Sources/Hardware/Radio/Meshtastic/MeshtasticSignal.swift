import Synchronization

/// A broadcast wake-up for tasks waiting on a condition kept elsewhere (the radio's
/// state): read ``generation``, test the condition, and if it does not hold yet call
/// ``wait(since:timeout:)``, which returns at once when ``signal()`` ran in between.
final class MeshtasticSignal: Sendable {
    private struct State {
        var generation = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
        /// Waits whose timeout or cancellation came before they were registered.
        var expired: Set<Int> = []
    }

    private let state = Mutex(State())

    var generation: Int { state.withLock { $0.generation } }

    /// Wakes every waiter.
    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns after the next ``signal()`` following `generation`, after `timeout`
    /// (on `clock`), or when the task is cancelled, whichever is first.
    func wait(since generation: Int, timeout: Duration, clock: any Clock<Duration>) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task {
            try? await clock.sleep(for: timeout)
            self.resume(id)
        }
        defer {
            timer.cancel()
            state.withLock { _ = $0.expired.remove(id) }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.generation != generation || state.expired.contains(id) { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            self.resume(id)
        }
    }

    private func resume(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.expired.insert(id)
                return nil
            }
            return waiter
        }
        waiter?.resume()
    }
}
