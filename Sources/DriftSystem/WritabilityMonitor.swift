import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Waits, without a thread of its own, until a file descriptor is writable.
///
/// The write-side twin of ``ReadinessMonitor``: a non-blocking `poll(2)` first, then a one-shot
/// registration on ``EpollReactor/shared`` for as long as a caller waits, so a descriptor with
/// room in its buffer never spins. Used by serial ports when the kernel's output buffer is full
/// (slow baud rate, RTS/CTS flow control holding). A read wait and a write wait on one
/// descriptor share its registration in the reactor.
///
/// One waiter at a time: call ``writable(timeout:)`` from a single task.
/// Always call ``close()`` before closing the descriptor: it returns once the reactor no longer
/// watches the descriptor for this monitor (a descriptor closed under an armed wait and its
/// number reused at once would leave that wait deaf). Its waits are checked by
/// ``ReadinessMonitor/recheckWaits(olderThan:)`` too.
public final class WritabilityMonitor: SweptWait, @unchecked Sendable {
    // All mutable state is confined to `queue`.
    private let queue: DispatchQueue
    private let reactor: EpollReactor
    private let timeouts: WaitTimeouts
    private var registration: EpollReactor.Registration?
    private var closed = false
    private var waiter: CheckedContinuation<Bool, any Error>?
    private var generation: UInt64 = 0
    private let descriptor: FileDescriptor
    /// When the armed wait began; `nil` while nobody waits.
    private var armedAt: ContinuousClock.Instant?

    /// Starts monitoring `descriptor`. The descriptor stays owned by the caller. `timeouts`
    /// ends timed waits (a Dispatch timer on the monitor's queue; a test's manual schedule).
    public init(descriptor: FileDescriptor, label: String = "drift.writability", reactor: EpollReactor = .shared,
                timeouts: WaitTimeouts = .dispatch) {
        self.queue = DispatchQueue(label: label)
        self.descriptor = descriptor
        self.reactor = reactor
        self.timeouts = timeouts
        WaitSweeps.register(self)
    }

    deinit {
        WaitSweeps.unregister(ObjectIdentifier(self))
        if let registration { reactor.cancel(registration) }
    }

    /// Suspends until the descriptor is writable (or in error / hung up, which
    /// the next `write` reports).
    ///
    /// - Parameter timeout: how long to wait; `nil` waits until writable or cancelled.
    /// - Returns: `true` when writable, `false` when `timeout` elapsed first.
    /// - Throws: `CancellationError` if the task is cancelled, ``ReadinessMonitorClosed`` after ``close()``.
    public func writable(timeout: Duration? = nil) async throws -> Bool {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                queue.async {
                    self.arm(continuation, timeout: timeout)
                }
            }
        } onCancel: {
            queue.async {
                self.fire(result: .failure(CancellationError()))
            }
        }
    }

    /// Stops monitoring; a pending or later wait throws ``ReadinessMonitorClosed``.
    ///
    /// Returns once the reactor no longer watches the descriptor for this monitor, so the caller
    /// may close it. Must not be called from the monitor's own queue.
    public func close() {
        queue.sync {
            guard !closed else { return }
            closed = true
            fire(result: .failure(ReadinessMonitorClosed()))
        }
    }

    // MARK: - On `queue`

    private func arm(_ continuation: CheckedContinuation<Bool, any Error>, timeout: Duration?) {
        if closed {
            continuation.resume(throwing: ReadinessMonitorClosed())
            return
        }
        if waiter != nil {
            preconditionFailure("WritabilityMonitor supports one waiter at a time")
        }
        if isWritableNow() {
            continuation.resume(returning: true)
            return
        }
        waiter = continuation
        generation &+= 1
        let armedGeneration = generation
        registration = reactor.register(descriptor.rawValue, for: .writable) { [self] in
            // Held until the wait ends; its end (fired, timed out, cancelled, closed) cancels
            // the registration, which lets go of this.
            queue.async {
                guard self.generation == armedGeneration else { return }
                self.fire(result: .success(true))
            }
        }
        if let timeout {
            timeouts.schedule(timeout, queue) { [weak self] in
                guard let self, self.generation == armedGeneration else { return }
                self.fire(result: .success(false))
            }
        }
        armedAt = .now
    }

    /// Whether a wait has armed its registration and not ended yet (a wait answered by its
    /// first `poll` never arms one).
    public var isWaiting: Bool { queue.sync { armedAt != nil } }

    /// Ends this monitor's wait as writable if it has lasted `age` or longer and the descriptor
    /// is writable now (see ``ReadinessMonitor/recheckWaits(olderThan:)``); returns whether it did.
    @discardableResult
    public func recheckWait(olderThan age: Duration) -> Bool {
        queue.sync {
            guard waiter != nil, !closed, let armedAt, ContinuousClock.now - armedAt >= age, isWritableNow() else { return false }
            WaitSweeps.countRescue()
            fire(result: .success(true))
            return true
        }
    }

    /// Whether a `write` would not block now (or would report an error or hang-up).
    private func isWritableNow() -> Bool {
        guard let events = try? descriptor.poll(events: Int16(POLLOUT), timeoutMilliseconds: 0) else { return true }
        return events != 0
    }

    private func fire(result: Result<Bool, any Error>) {
        guard let waiter else { return }
        self.waiter = nil
        armedAt = nil
        generation &+= 1
        if let registration { reactor.cancel(registration) }
        registration = nil
        waiter.resume(with: result)
    }
}
