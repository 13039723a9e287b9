import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Waits, without a thread of its own, until a file descriptor is writable.
///
/// The write-side twin of ``ReadinessMonitor``: a `DispatchSource` write source
/// (epoll on Linux) resumed only while a caller waits, so a descriptor with
/// room in its buffer does not spin. Used by serial ports when the kernel's
/// output buffer is full (slow baud rate, RTS/CTS flow control holding).
///
/// One waiter at a time: call ``writable(timeout:)`` from a single task.
/// Always call ``close()`` before closing the descriptor: it returns once the source is
/// unregistered (its cancel handler ran). libdispatch keys its epoll registrations by
/// descriptor number and unregisters on its own threads some time after `cancel()`; a
/// descriptor closed before that, its number reused at once, left the new descriptor's
/// sources registered on nothing, so a serial port opened at that moment never woke for
/// input or a hang-up. Its waits are checked by ``ReadinessMonitor/recheckWaits(olderThan:)``
/// too.
public final class WritabilityMonitor: SweptWait, @unchecked Sendable {
    // All mutable state is confined to `queue`.
    private let queue: DispatchQueue
    private let source: any DispatchSourceWrite
    private var sourceSuspended = true
    private var closed = false
    private var waiter: CheckedContinuation<Bool, any Error>?
    private var generation: UInt64 = 0
    /// Entered at init, left by the source's cancel handler.
    private let liveSource = DispatchGroup()
    private let descriptor: FileDescriptor
    /// When the armed wait began; `nil` while nobody waits.
    private var armedAt: ContinuousClock.Instant?

    /// Starts monitoring `descriptor`. The descriptor stays owned by the caller.
    public init(descriptor: FileDescriptor, label: String = "drift.writability") {
        self.queue = DispatchQueue(label: label)
        self.descriptor = descriptor
        self.source = DispatchSource.makeWriteSource(fileDescriptor: descriptor.rawValue, queue: queue)
        source.setEventHandler { [unowned self] in
            self.fire(result: .success(true))
        }
        liveSource.enter()
        source.setCancelHandler { [liveSource] in liveSource.leave() }
        source.activate()
        queue.sync {
            source.suspend()
            sourceSuspended = true
        }
        WaitSweeps.register(self)
    }

    deinit {
        WaitSweeps.unregister(ObjectIdentifier(self))
        // A suspended source must be resumed before it is released.
        if !closed {
            source.cancel()
            if sourceSuspended { source.resume() }
        }
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
    /// Returns once the source no longer refers to the descriptor, so the caller may close
    /// it. Must not be called from the monitor's own queue.
    public func close() {
        queue.sync {
            guard !closed else { return }
            closed = true
            source.cancel()
            if sourceSuspended {
                source.resume()
                sourceSuspended = false
            }
            if let waiter {
                self.waiter = nil
                armedAt = nil
                waiter.resume(throwing: ReadinessMonitorClosed())
            }
        }
        liveSource.wait()
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
        waiter = continuation
        generation &+= 1
        if sourceSuspended {
            sourceSuspended = false
            source.resume()
        }
        if let timeout {
            let armedGeneration = generation
            queue.asyncAfter(deadline: .now() + ReadinessMonitor.dispatchInterval(timeout)) {
                guard self.generation == armedGeneration else { return }
                self.fire(result: .success(false))
            }
        }
        armedAt = .now
    }

    /// Ends this monitor's wait as writable if it has lasted `age` or longer and the descriptor
    /// is writable now (see ``ReadinessMonitor/recheckWaits(olderThan:)``); returns whether it did.
    @discardableResult
    public func recheckWait(olderThan age: Duration) -> Bool {
        queue.sync {
            guard waiter != nil, !closed, let armedAt, ContinuousClock.now - armedAt >= age else { return false }
            if let events = try? descriptor.poll(events: Int16(POLLOUT), timeoutMilliseconds: 0), events == 0 { return false }
            WaitSweeps.countRescue()
            fire(result: .success(true))
            return true
        }
    }

    private func fire(result: Result<Bool, any Error>) {
        guard let waiter else { return }
        self.waiter = nil
        armedAt = nil
        generation &+= 1
        if !sourceSuspended && !closed {
            source.suspend()
            sourceSuspended = true
        }
        waiter.resume(with: result)
    }
}
