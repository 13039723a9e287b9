#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A mutex and a condition variable whose timed waits run on `CLOCK_MONOTONIC`
/// (``MonotonicTime``'s scale), so that a wall-clock step (a box setting its clock from GPS)
/// neither cuts a wait short nor stretches it.
///
/// The caller locks around its own state, as with `pthread_cond_wait`.
public final class MonotonicCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }

    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` with the mutex held.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Wakes one waiter. Call with the mutex held.
    public func signal() { pthread_cond_signal(condition) }

    /// Waits until signalled (or a spurious wake-up). Call with the mutex held.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits until signalled or until `deadline` on ``MonotonicTime``'s scale. Call with the
    /// mutex held.
    public func wait(until deadline: Duration) {
        var spec = timespec()
        spec.tv_sec = Int(deadline.components.seconds)
        spec.tv_nsec = Int(deadline.components.attoseconds / 1_000_000_000)
        _ = pthread_cond_timedwait(condition, mutex, &spec)
    }
}
