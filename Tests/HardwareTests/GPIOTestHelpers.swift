import Hardware
import Synchronization

/// A simulated board shaped like a Raspberry Pi 5: the RP1 header chip and a small expander.
func makeSimulatedPiBoard(now: @escaping @Sendable () -> Duration = { .zero }) -> SimulatedGPIODriver {
    let driver = SimulatedGPIODriver(now: now)
    driver.addChip(name: "gpiochip0", label: "pinctrl-rp1", lineCount: 54)
    driver.addChip(name: "gpiochip1", label: "gpio-expander", lineNames: ["LED_RED", "LED_GREEN", "", "BUTTON_A"])
    return driver
}

/// Thrown by ``gpioAwait(_:within:)`` when the task did not finish in time.
struct GPIOTestTimedOut: Error {}

/// Waits for `task` but gives up after `limit`, so a bug makes the test fail instead of hang.
/// (A guard against hangs, not a timing assertion: limits are generous.)
func gpioAwait<T: Sendable>(_ task: Task<T, any Error>, within limit: Duration = .seconds(10)) async throws -> T {
    let outcome: Result<T, any Error> = await withCheckedContinuation { continuation in
        let resumed = Mutex(false)
        let finish: @Sendable (Result<T, any Error>) -> Void = { outcome in
            let first = resumed.withLock { done in
                defer { done = true }
                return !done
            }
            if first { continuation.resume(returning: outcome) }
        }
        Task { finish(await task.result) }
        Task {
            try? await Task.sleep(for: limit)
            finish(.failure(GPIOTestTimedOut()))
        }
    }
    return try outcome.get()
}

/// Collects `count` events from a fresh iterator of `request`.
func collectEvents(_ count: Int, from request: GPIOInputRequest) async throws -> [GPIOEdgeEvent] {
    var events: [GPIOEdgeEvent] = []
    for try await event in request.events() {
        events.append(event)
        if events.count == count { break }
    }
    return events
}

/// A one-shot gate: ``wait()`` returns once ``open()`` was called (before or after).
final class GPIOTestGate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}
