import Dispatch
import DriftSystem
import Synchronization

/// The edge events of a ``GPIOInputRequest`` (see ``GPIOInputRequest/events()``).
///
/// Ends on task cancellation or release; throws ``GPIOError`` (kind
/// ``GPIOError/Kind/chipVanished`` when the chip disappeared) and then ends.
public struct GPIOEdgeEventSequence: AsyncSequence, Sendable {
    public typealias Element = GPIOEdgeEvent
    public typealias Failure = GPIOError

    let request: GPIOInputRequest

    public func makeAsyncIterator() -> Iterator {
        Iterator(waiter: EventWaiter(request: request))
    }

    public struct Iterator: AsyncIteratorProtocol, Sendable {
        public typealias Element = GPIOEdgeEvent
        public typealias Failure = GPIOError

        let waiter: EventWaiter
        private var pending: [GPIOEdgeEvent] = []
        private var finished = false

        init(waiter: EventWaiter) {
            self.waiter = waiter
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(GPIOError) -> GPIOEdgeEvent? {
            while !finished {
                if !pending.isEmpty {
                    return pending.removeFirst()
                }
                if Task.isCancelled {
                    break
                }
                let events: [GPIOEdgeEvent]?
                do {
                    events = try waiter.request.readPendingEvents()
                } catch {
                    finished = true
                    throw error
                }
                guard let events else { break }
                if events.isEmpty {
                    guard try await waiter.waitReadable() else { break }
                } else {
                    pending = events
                }
            }
            finished = true
            return nil
        }

        public mutating func next() async throws(GPIOError) -> GPIOEdgeEvent? {
            try await next(isolation: nil)
        }
    }
}

/// One iterator's readiness monitor on the request's event descriptor.
///
/// Cancelling the waiting task wakes the wait (the monitor's own handler) and
/// also closes the monitor, so a cancellation that lands just before the
/// monitor armed its wait still ends it; the iterator then ends.
final class EventWaiter: Sendable {
    let request: GPIOInputRequest
    private let monitor: ReadinessMonitor?
    private let id: UInt64
    private let waiting = Mutex(false)
    private static let lastID = Atomic<UInt64>(0)

    init(request: GPIOInputRequest) {
        self.request = request
        self.id = Self.lastID.add(1, ordering: .relaxed).newValue
        self.monitor = request.makeMonitor(for: id)
    }

    deinit {
        request.dropMonitor(for: id)
    }

    /// Waits until events may be pending: `true`, or `false` when cancelled or released.
    func waitReadable() async throws(GPIOError) -> Bool {
        guard let monitor else { return false }
        let claimed = waiting.withLock { waiting in
            defer { waiting = true }
            return !waiting
        }
        guard claimed else {
            throw GPIOError(.concurrentEventWait, operation: "wait for events", chip: request.chip,
                            line: GPIOChip.describe(request.offsets))
        }
        defer { waiting.withLock { $0 = false } }
        do {
            try await withTaskCancellationHandler {
                _ = try await monitor.readable()
            } onCancel: {
                // Not inline: close() waits on the monitor's queue, which may be
                // resuming this very task, and cancellation handlers run with the
                // task's status locked; waiting here would deadlock.
                DispatchQueue.global().async { monitor.close() }
            }
            return true
        } catch {
            // CancellationError or ReadinessMonitorClosed (cancelled or released).
            return false
        }
    }
}
