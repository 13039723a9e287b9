import Synchronization

/// A first-come-first-served async lock: one holder at a time, waiters suspended
/// (not blocked) and cancellable. Serialises readers and writers of a serial port
/// across their `await`s, which an actor or `Mutex` cannot do.
final class SerialAsyncGate: Sendable {
    private enum Entry {
        case registered
        case waiting(CheckedContinuation<Void, any Error>)
        case cancelledEarly
    }

    private struct State {
        var held = false
        var nextID: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
        var queue: [UInt64] = []
    }

    private let state = Mutex(State())

    init() {}

    /// Waits for the gate. Throws `CancellationError` if the task is cancelled first.
    func acquire() async throws {
        let id = state.withLock { state in
            state.nextID &+= 1
            state.entries[state.nextID] = .registered
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if case .cancelledEarly = state.entries[id] {
                        state.entries[id] = nil
                        return .failure(CancellationError())
                    }
                    if !state.held {
                        state.held = true
                        state.entries[id] = nil
                        return .success(())
                    }
                    state.entries[id] = .waiting(continuation)
                    state.queue.append(id)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                switch state.entries[id] {
                case .registered:
                    state.entries[id] = .cancelledEarly
                    return nil
                case .waiting(let continuation):
                    state.entries[id] = nil
                    state.queue.removeAll { $0 == id }
                    return continuation
                case .cancelledEarly, nil:
                    return nil
                }
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Hands the gate to the next waiter, or opens it.
    func release() {
        let next: CheckedContinuation<Void, any Error>? = state.withLock { state in
            precondition(state.held, "SerialAsyncGate released while not held")
            while !state.queue.isEmpty {
                let id = state.queue.removeFirst()
                if case .waiting(let continuation) = state.entries[id] {
                    state.entries[id] = nil
                    return continuation   // the gate stays held, now by this waiter
                }
            }
            state.held = false
            return nil
        }
        next?.resume()
    }

    /// Runs `body` holding the gate.
    func withGate<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await acquire()
        defer { release() }
        return try await body()
    }
}
