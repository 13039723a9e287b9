import Synchronization

/// Takes a client's events off its stream as they come, with the instant each arrived, so a
/// caller can wait for a particular one with a deadline (`driftd bench mqtt`, the broker tests).
///
/// Waiting is event-driven: a waiter is resumed by the arrival that matches, or by its deadline.
/// One waiter at a time.
public final class MQTTEventLog: Sendable {
    public typealias Arrival = (event: MQTTEvent, at: ContinuousClock.Instant)

    private struct Waiter {
        var id: Int
        var match: @Sendable (MQTTEvent) -> Bool
        var continuation: CheckedContinuation<Arrival?, Never>
    }

    private struct State {
        var arrivals: [Arrival] = []
        var ended = false
        var waiter: Waiter?
        var nextID = 0
        /// Waits whose deadline or cancellation came before they were registered.
        var abandoned: Set<Int> = []

        /// Removes and returns the first arrival matching `match`, and every one before it.
        mutating func take(_ match: (MQTTEvent) -> Bool) -> Arrival? {
            guard let index = arrivals.firstIndex(where: { match($0.event) }) else { return nil }
            defer { arrivals.removeFirst(index + 1) }
            return arrivals[index]
        }
    }

    /// The state, shared with the task that reads the stream.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let reader: Task<Void, Never>

    /// Starts reading `events` at once.
    public init(_ events: AsyncStream<MQTTEvent>) {
        let shared = self.shared
        reader = Task {
            for await event in events {
                let arrival = (event, ContinuousClock.now)
                let resume = shared.state.withLock { state -> (CheckedContinuation<Arrival?, Never>, Arrival)? in
                    state.arrivals.append(arrival)
                    guard let waiter = state.waiter, let found = state.take(waiter.match) else { return nil }
                    state.waiter = nil
                    return (waiter.continuation, found)
                }
                if let (continuation, found) = resume { continuation.resume(returning: found) }
            }
            let waiter = shared.state.withLock { state -> Waiter? in
                state.ended = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.continuation.resume(returning: nil)
        }
    }

    deinit { reader.cancel() }

    /// Removes and returns the first event matching `match` and when it arrived (older events
    /// are dropped), waiting up to `timeout` for it; `nil` when it did not come in time or the
    /// stream ended.
    public func next(within timeout: Duration, _ match: @escaping @Sendable (MQTTEvent) -> Bool) async -> Arrival? {
        if let found = shared.state.withLock({ $0.take(match) }) { return found }
        let id = shared.state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let arrival = await withTaskGroup(of: Arrival?.self) { group in
            group.addTask { await self.wait(id: id, for: match) }
            group.addTask {
                // The deadline of a wait for a real network event.
                try? await Task.sleep(for: timeout)
                self.abandon(id)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        // Both children have ended; a late `abandon` may have left the id behind.
        shared.state.withLock { _ = $0.abandoned.remove(id) }
        return arrival
    }

    /// Like ``next(within:_:)``, without the instant.
    public func event(within timeout: Duration, _ match: @escaping @Sendable (MQTTEvent) -> Bool) async -> MQTTEvent? {
        await next(within: timeout, match)?.event
    }

    private func wait(id: Int, for match: @escaping @Sendable (MQTTEvent) -> Bool) async -> Arrival? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Arrival?, Never>) in
                enum Now { case found(Arrival), none, wait }
                let now = shared.state.withLock { state -> Now in
                    if let found = state.take(match) { return .found(found) }
                    if state.ended || state.abandoned.remove(id) != nil { return .none }
                    precondition(state.waiter == nil, "MQTTEventLog: one waiter at a time")
                    state.waiter = Waiter(id: id, match: match, continuation: continuation)
                    return .wait
                }
                switch now {
                case .found(let found): continuation.resume(returning: found)
                case .none: continuation.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            abandon(id)
        }
    }

    /// Ends wait `id` with `nil` if it is still waiting, or makes it end at once when it comes.
    private func abandon(_ id: Int) {
        let waiter = shared.state.withLock { state -> Waiter? in
            guard let waiter = state.waiter, waiter.id == id else {
                state.abandoned.insert(id)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.continuation.resume(returning: nil)
    }
}
