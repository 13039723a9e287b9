import Synchronization

/// Something start-up waits for once (the visitor page listening) before `READY=1`.
///
/// ``open()`` may come before or after ``wait(atMost:)``. A gate that never opens (the port
/// is taken: the `http` fault) lets the waiter go after `atMost`, so the box still reports
/// ready and systemd does not restart it over a listen problem it retries by itself; a
/// cancelled waiter (shutdown during start-up) goes at once.
public final class StartupGate: Sendable {
    private let opened = Mutex(false)

    public init() {}

    /// Lets every waiter go, now and later.
    public func open() {
        opened.withLock { $0 = true }
    }

    public var isOpen: Bool { opened.withLock { $0 } }

    /// Returns when the gate opens, after `atMost`, or when the task is cancelled (`true`: it
    /// opened). Looks every 20 ms: it runs once, during start-up.
    @discardableResult
    public func wait(atMost limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !isOpen, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return isOpen
    }
}
