import Synchronization

/// The gateway's timer loop: asks the core what is due (``GatewayCore/tick()``, which answers
/// how long until its next deadline) and sleeps on the injected clock until then — or less,
/// when the core's deadlines moved earlier meanwhile (``rearm()``). An idle gateway wakes only
/// for its own deadlines (the election every 5 s, telemetry), not to poll.
final class GatewayTimer: Sendable {
    private struct State {
        var sleeper: Task<Void, Never>?
        /// A rearm that came while no sleep was under way: the next one ends at once.
        var rearmed = false
    }

    private let clock: any Clock<Duration>
    private let state = Mutex(State())

    init(clock: any Clock<Duration>) {
        self.clock = clock
    }

    /// Cuts the current sleep short (or the next one, when none is under way).
    func rearm() {
        let sleeper = state.withLock { state -> Task<Void, Never>? in
            guard let sleeper = state.sleeper else {
                state.rearmed = true
                return nil
            }
            return sleeper
        }
        sleeper?.cancel()
    }

    /// Runs `tick` and sleeps for what it answers, until the calling task is cancelled.
    func run(_ tick: @Sendable () async -> Duration) async {
        while !Task.isCancelled {
            let wait = await tick()
            let clock = self.clock
            let sleeper = Task<Void, Never> { try? await clock.sleep(for: wait) }
            let cutShort = state.withLock { state -> Bool in
                defer { state.rearmed = false }
                if !state.rearmed { state.sleeper = sleeper }
                return state.rearmed
            }
            if cutShort { sleeper.cancel() }
            await withTaskCancellationHandler {
                await sleeper.value
            } onCancel: {
                sleeper.cancel()
            }
            state.withLock { $0.sleeper = nil }
        }
    }
}
