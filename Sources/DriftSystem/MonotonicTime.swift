import CDriftSys

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads `CLOCK_MONOTONIC`, the clock the kernel stamps GPIO edge events with.
///
/// Swift's `ContinuousClock` on Linux reads `CLOCK_BOOTTIME`, which drifts from
/// `CLOCK_MONOTONIC` across suspend; use this where times are compared with
/// kernel timestamps.
public enum MonotonicTime {
    /// Time since an arbitrary fixed point (boot, on Linux), excluding suspend.
    public static func now() -> Duration {
        var spec = timespec()
        // CLOCK_MONOTONIC cannot fail with a valid timespec pointer.
        _ = clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }
}
