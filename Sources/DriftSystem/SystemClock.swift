import CDriftSys
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Setting the system (realtime) clock.
public enum SystemClock {
    /// Sets `CLOCK_REALTIME` to `date` with `clock_settime(2)`.
    ///
    /// - Throws: ``SystemError`` (`EPERM` without `CAP_SYS_TIME`, `EINVAL` for a date the
    ///   kernel refuses).
    public static func set(to date: Date) throws(SystemError) {
        let interval = date.timeIntervalSince1970
        let seconds = interval.rounded(.down)
        let nanoseconds = min(999_999_999, max(0, Int((interval - seconds) * 1e9)))
        guard seconds.isFinite, abs(seconds) < 9e15 else {
            throw SystemError(operation: "clock_settime", errno: EINVAL, subject: "\(date)")
        }
        try Syscall.retryingEINTR("clock_settime", subject: "CLOCK_REALTIME") {
            drift_set_realtime(Int64(seconds), nanoseconds)
        }
    }
}
