import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Waits, without a thread of its own, until a file descriptor is readable.
///
/// Each wait arms a one-shot registration on ``EpollReactor/shared`` (the monitors' own epoll
/// thread) and cancels it when the wait ends, so a descriptor with unread data never spins and
/// no readiness edge can be lost between waits. A non-blocking `poll(2)` first answers at once
/// when data is already there. Waiting is cancellable: cancelling the waiting task returns at
/// once with `CancellationError`. Serial ports, GPIO edge events and sockets use this to expose
/// their input as async sequences.
///
/// One waiter at a time: call ``readable(timeout:)`` from a single task.
///
/// ``recheckWaits(olderThan:)`` ends waits whose registration never fired although the
/// descriptor is ready (a descriptor closed or replaced under an armed wait); the daemon calls
/// it once per liveness period.
///
/// Always call ``close()`` before closing the descriptor: it returns once the reactor no
/// longer watches the descriptor for this monitor. A descriptor closed under an armed wait and
/// its number reused (which the kernel does at once) would leave that wait deaf.
public final class ReadinessMonitor: SweptWait, @unchecked Sendable {
    // All mutable state is confined to `queue`.
    private let queue: DispatchQueue
    private let descriptor: FileDescriptor
    private var closed = false
    private var waiter: CheckedContinuation<Bool, any Error>?
    private let reactor: EpollReactor
    private let timeouts: WaitTimeouts
    private var registration: EpollReactor.Registration?
    private var generation: UInt64 = 0
    /// Identity of each `readable` call, so a cancellation that arrives before
    /// its wait is armed is not lost.
    private var nextCallID: UInt64 = 0
    private var armedCallID: UInt64?
    private var cancelledBeforeArming: Set<UInt64> = []
    /// When the armed wait was registered; `nil` while none is.
    private var armedAt: ContinuousClock.Instant?

    /// Ends every wait, of every ``ReadinessMonitor`` and ``WritabilityMonitor`` in the
    /// process, that has been armed for `age` or longer although its descriptor is ready now (a
    /// non-blocking `poll(2)` each): waits whose registration was lost. Each ends as if it had
    /// fired. Call it from any thread but a monitor's own
    /// queue; an armed wait is checked on the calling thread (`sync` on an idle queue), so it
    /// wakes no other thread. Returns how many waits it ended.
    @discardableResult
    public static func recheckWaits(olderThan age: Duration) -> Int {
        WaitSweeps.sweep(olderThan: age)
    }

    /// Waits ``recheckWaits(olderThan:)`` has ended since the process started: each one a
    /// wait that would otherwise have hung. Normally 0.
    public static var rescuedWaits: Int { WaitSweeps.rescuedWaits }

    /// Starts monitoring `descriptor`. The descriptor stays owned by the caller. `timeouts`
    /// ends timed waits (a Dispatch timer on the monitor's queue; a test's manual schedule).
    public init(descriptor: FileDescriptor, label: String = "drift.readiness", reactor: EpollReactor = .shared,
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

    /// Suspends until the descriptor is readable (or at end of file / hung up,
    /// which the next `read` reports).
    ///
    /// - Parameter timeout: how long to wait; `nil` waits until readable or cancelled.
    /// - Returns: `true` when readable, `false` when `timeout` elapsed first.
    /// - Throws: `CancellationError` if the task is cancelled, ``ReadinessMonitorClosed`` after ``close()``.
    public func readable(timeout: Duration? = nil) async throws -> Bool {
        try Task.checkCancellation()
        let callID = queue.sync { () -> UInt64 in
            nextCallID &+= 1
            return nextCallID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                queue.async {
                    self.arm(continuation, callID: callID, timeout: timeout)
                }
            }
        } onCancel: {
            queue.async {
                if self.armedCallID == callID {
                    self.finish(.failure(CancellationError()))
                } else {
                    self.cancelledBeforeArming.insert(callID)
                }
            }
        }
    }

    /// Stops monitoring; a pending or later wait throws ``ReadinessMonitorClosed``.
    ///
    /// Returns once the reactor no longer watches the descriptor for this monitor, so the
    /// caller may close it. Must not be called from the monitor's own queue.
    public func close() {
        queue.sync {
            guard !closed else { return }
            closed = true
            finish(.failure(ReadinessMonitorClosed()))
        }
    }

    // MARK: - On `queue`

    private func arm(_ continuation: CheckedContinuation<Bool, any Error>, callID: UInt64, timeout: Duration?) {
        if closed {
            continuation.resume(throwing: ReadinessMonitorClosed())
            return
        }
        if cancelledBeforeArming.remove(callID) != nil {
            continuation.resume(throwing: CancellationError())
            return
        }
        // Cancellations of earlier calls that arrived after those calls ended are stale.
        if !cancelledBeforeArming.isEmpty {
            cancelledBeforeArming = cancelledBeforeArming.filter { $0 > callID }
        }
        precondition(waiter == nil, "ReadinessMonitor supports one waiter at a time")
        if isReadyNow() {
            continuation.resume(returning: true)
            return
        }
        waiter = continuation
        armedCallID = callID
        generation &+= 1
        let armedGeneration = generation
        registration = reactor.register(descriptor.rawValue, for: .readable) { [self] in
            // Held until the wait ends; its end (fired, timed out, cancelled, closed) cancels
            // the registration, which lets go of this.
            queue.async {
                guard self.generation == armedGeneration else { return }
                self.finish(.success(true))
            }
        }
        if let timeout {
            timeouts.schedule(timeout, queue) { [weak self] in
                guard let self, self.generation == armedGeneration else { return }
                self.finish(.success(false))
            }
        }
        armedAt = .now
    }

    /// Whether a wait has armed its registration and not ended yet (a wait answered by its
    /// first `poll` never arms one).
    public var isWaiting: Bool { queue.sync { armedAt != nil } }

    /// Ends this monitor's wait as ready if it has been armed for `age` or longer and
    /// the descriptor is ready now (see ``recheckWaits(olderThan:)``); returns whether it did.
    @discardableResult
    public func recheckWait(olderThan age: Duration) -> Bool {
        queue.sync {
            guard waiter != nil, let armedAt, ContinuousClock.now - armedAt >= age, isReadyNow() else { return false }
            WaitSweeps.countRescue()
            finish(.success(true))
            return true
        }
    }

    private func isReadyNow() -> Bool {
        guard let events = try? descriptor.poll(events: Int16(POLLIN), timeoutMilliseconds: 0) else { return true }
        return events != 0
    }

    private func finish(_ result: Result<Bool, any Error>) {
        guard let waiter else { return }
        self.waiter = nil
        armedCallID = nil
        armedAt = nil
        generation &+= 1
        if let registration { reactor.cancel(registration) }
        registration = nil
        waiter.resume(with: result)
    }
}

/// Thrown by ``ReadinessMonitor/readable(timeout:)`` once the monitor was closed.
public struct ReadinessMonitorClosed: Error, Sendable {
    public init() {}
}
