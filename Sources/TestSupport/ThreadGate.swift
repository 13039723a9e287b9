import Foundation

/// A gate that holds the threads passing it until the test opens it, and counts them.
///
/// Made for fakes that run on threads of their own (a hashing pool's workers): ``pass()``
/// blocks the calling thread while the gate is closed, so it must never be called on the
/// cooperative pool. ``waitForArrivals(_:)`` lets a test wait, without polling, until that
/// many threads have reached the gate. A thread still held after ``holdLimit`` passes on its
/// own and the gate records it (``releasedByLimit``): a test that forgot to open the gate, or
/// code that waits on the gate from a thread the test needs, fails instead of hanging.
public final class ThreadGate: @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var isOpen: Bool
    private var arrivals = 0
    private var holding = 0
    private var limitReleases = 0
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// How long a thread is held at most.
    public let holdLimit: TimeInterval

    /// - Parameters:
    ///   - open: whether threads pass at once (a counter only) until ``close()``.
    ///   - holdLimit: the longest a thread is held (a hang guard, not a timing check).
    public init(open: Bool = false, holdLimit: TimeInterval = 120) {
        isOpen = open
        self.holdLimit = holdLimit
    }

    /// Counts one arrival and blocks the calling thread while the gate is closed.
    public func pass() {
        condition.lock()
        arrivals += 1
        holding += 1
        let ready = takeSatisfiedWaiters()
        condition.unlock()
        for continuation in ready { continuation.resume() }

        condition.lock()
        let deadline = Date(timeIntervalSinceNow: holdLimit)
        var timedOut = false
        while !isOpen, !timedOut {
            timedOut = !condition.wait(until: deadline)
        }
        if timedOut, !isOpen { limitReleases += 1 }
        holding -= 1
        condition.unlock()
    }

    /// Lets every held thread and every later one through.
    public func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Holds the threads that arrive from now on.
    public func close() {
        condition.lock()
        isOpen = false
        condition.unlock()
    }

    /// Threads that have reached the gate so far (passed or held).
    public var arrived: Int {
        condition.lock()
        defer { condition.unlock() }
        return arrivals
    }

    /// Threads held at the gate now.
    public var held: Int {
        condition.lock()
        defer { condition.unlock() }
        return holding
    }

    /// Threads that passed because ``holdLimit`` ran out while the gate was closed.
    public var releasedByLimit: Int {
        condition.lock()
        defer { condition.unlock() }
        return limitReleases
    }

    /// Returns once `count` threads have reached the gate in all.
    public func waitForArrivals(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if arrivals >= count {
                condition.unlock()
                continuation.resume()
            } else {
                waiters.append((count, continuation))
                condition.unlock()
            }
        }
    }

    /// Takes the waiters satisfied by the arrivals so far; called with the lock held.
    private func takeSatisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
        let ready = waiters.filter { $0.count <= arrivals }.map(\.continuation)
        waiters.removeAll { $0.count <= arrivals }
        return ready
    }
}
