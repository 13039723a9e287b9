import Dispatch

/// Waits, without a thread of its own, until a file descriptor is writable.
///
/// The write-side twin of ``ReadinessMonitor``: a `DispatchSource` write source
/// (epoll on Linux) resumed only while a caller waits, so a descriptor with
/// room in its buffer does not spin. Used by serial ports when the kernel's
/// output buffer is full (slow baud rate, RTS/CTS flow control holding).
///
/// One waiter at a time: call ``writable(timeout:)`` from a single task.
/// Call ``close()`` before closing the descriptor.
public final class WritabilityMonitor: @unchecked Sendable {
    // All mutable state is confined to `queue`.
    private let queue: DispatchQueue
    private let source: any DispatchSourceWrite
    private var sourceSuspended = true
    private var closed = false
    private var waiter: CheckedContinuation<Bool, any Error>?
    private var generation: UInt64 = 0

    /// Starts monitoring `descriptor`. The descriptor stays owned by the caller.
    public init(descriptor: FileDescriptor, label: String = "drift.writability") {
        self.queue = DispatchQueue(label: label)
        self.source = DispatchSource.makeWriteSource(fileDescriptor: descriptor.rawValue, queue: queue)
        source.setEventHandler { [unowned self] in
            self.fire(result: .success(true))
        }
        source.activate()
        queue.sync {
            source.suspend()
            sourceSuspended = true
        }
    }

    deinit {
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
                waiter.resume(throwing: ReadinessMonitorClosed())
            }
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
        waiter = continuation
        generation &+= 1
        if sourceSuspended {
            sourceSuspended = false
            source.resume()
        }
        if let timeout {
            let armedGeneration = generation
            let components = timeout.components
            let nanoseconds = max(0, components.seconds) * 1_000_000_000 + components.attoseconds / 1_000_000_000
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) {
                guard self.generation == armedGeneration else { return }
                self.fire(result: .success(false))
            }
        }
    }

    private func fire(result: Result<Bool, any Error>) {
        guard let waiter else { return }
        self.waiter = nil
        generation &+= 1
        if !sourceSuspended && !closed {
            source.suspend()
            sourceSuspended = true
        }
        waiter.resume(with: result)
    }
}
