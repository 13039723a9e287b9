import Synchronization

/// Wakes one waiting task early: ``ring()`` ends the current (or next) ``wait(timeout:)``.
///
/// The mesh's scheduler and the bottle lifecycle service sleep until their next deadline and
/// are rung when new work is queued or a sooner deadline appears, so an idle box wakes only
/// for its own timers.
final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.rung = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns when rung (at once if rung since the last wait), after `timeout` on `clock`, or on cancellation.
    func wait(timeout: Duration, clock: any Clock<Duration> = ContinuousClock()) async {
        await wait { try await clock.sleep(for: timeout) }
    }

    /// Returns when rung (at once if rung since the last wait), when `sleep` returns (it sleeps
    /// until a deadline and is cancelled on a ring), or on cancellation.
    func wait(orUntil sleep: @escaping @Sendable () async throws -> Void) async {
        // Rung since the last wait: return without starting a sleep only to cancel it (on a
        // test's manual clock that sleep showed as a sleeper for a moment).
        let rung = state.withLock { state -> Bool in
            defer { state.rung = false }
            return state.rung
        }
        if rung { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await sleep() }
            group.addTask { await self.waitForRing() }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForRing() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.rung {
                        state.rung = false
                        return true
                    }
                    if Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
