import Foundation
import Synchronization

/// Camp news for the box sockets (`/api/v1/live`): while anyone listens, looks at the camp
/// directory every ``interval`` and sends every listener a `camps` event (the listing, as
/// `GET /api/v1/camps` answers it) when it changed, so a new emergency reaches open pages
/// within seconds without a reload.
///
/// One look per interval for all listeners, on the camp service's own thread; while nobody
/// listens, no look and no timer: the loop waits for the first listener (an idle box does not
/// wake for it).
final class CampNews: Sendable {
    /// How often the directory is looked at while someone listens.
    let interval: Duration

    private struct State {
        var listeners: [Int: AsyncStream<String>.Continuation] = [:]
        var next = 0
        var last: CampListing?
    }

    private let state = Mutex(State())
    /// Rung by ``listen()``: the loop waits on it while nobody listens.
    private let arrivals = Doorbell()
    /// How often the loop began to wait for a listener (tests).
    let idleWaits = Atomic<Int>(0)

    init(interval: Duration = .seconds(2)) {
        self.interval = interval
    }

    /// A new listener's id and stream; end it with ``remove(_:)``.
    func listen() -> (id: Int, events: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(4))
        let id = state.withLock { state in
            state.next += 1
            state.listeners[state.next] = continuation
            return state.next
        }
        arrivals.ring()
        return (id, stream)
    }

    func remove(_ id: Int) {
        state.withLock { $0.listeners.removeValue(forKey: id) }?.finish()
    }

    var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// Looks at `listing` every ``interval`` until cancelled; without a camp directory, only
    /// waits to be cancelled (and ends every stream then).
    func run(listing: (@Sendable () async throws -> CampListing)?, clock: any Clock<Duration>) async {
        defer {
            let listeners = state.withLock { state in
                defer { state.listeners = [:] }
                return Array(state.listeners.values)
            }
            for listener in listeners { listener.finish() }
        }
        while !Task.isCancelled {
            if listenerCount == 0 {
                // Nobody listens: wait for a listener, on no timer (the year-long sleep is only
                // the wait's other arm; it never fires).
                idleWaits.add(1, ordering: .relaxed)
                await arrivals.wait(orUntil: { try await Task.sleep(for: .seconds(86_400 * 365)) })
                continue
            }
            do { try await clock.sleep(for: interval) } catch { return }
            guard let listing, listenerCount > 0, let current = try? await listing() else { continue }
            publish(current)
        }
    }

    /// Sends `current` to every listener if it differs from the last listing seen.
    func publish(_ current: CampListing) {
        let (listeners, changed) = state.withLock { state in
            let changed = state.last != current
            state.last = current
            return (Array(state.listeners.values), changed)
        }
        guard changed, let event = Self.event(current) else { return }
        for listener in listeners { listener.yield(event) }
    }

    /// `{"type":"camps","listing":{…}}`.
    static func event(_ listing: CampListing) -> String? {
        guard let data = try? APIJSON.data(listing), let body = String(data: data, encoding: .utf8) else { return nil }
        return "{\"type\":\"camps\",\"listing\":\(body)}"
    }
}
