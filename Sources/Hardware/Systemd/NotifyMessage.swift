/// One assignment of the systemd notification protocol (`sd_notify(3)`).
public enum NotifyMessage: Sendable, Equatable {
    /// `READY=1`: start-up finished.
    case ready
    /// `RELOADING=1`.
    case reloading
    /// `STOPPING=1`: shutdown began.
    case stopping
    /// `STATUS=…`: a one-line human-readable status (newlines are replaced by spaces).
    case status(String)
    /// `WATCHDOG=1`: keep-alive ping.
    case watchdog
    /// `WATCHDOG=trigger`: ask systemd to act as if the watchdog expired.
    case watchdogTrigger
    /// `EXTEND_TIMEOUT_USEC=…`: ask for more time for the current start-up or shutdown step.
    case extendTimeout(Duration)
    /// `MAINPID=…`.
    case mainPID(Int32)

    /// The wire form, e.g. `READY=1`.
    public var assignment: String {
        switch self {
        case .ready: "READY=1"
        case .reloading: "RELOADING=1"
        case .stopping: "STOPPING=1"
        case .status(let text):
            "STATUS=" + String(text.map { $0.isNewline ? " " : $0 })
        case .watchdog: "WATCHDOG=1"
        case .watchdogTrigger: "WATCHDOG=trigger"
        case .extendTimeout(let duration): "EXTEND_TIMEOUT_USEC=\(duration.wholeMicroseconds)"
        case .mainPID(let pid): "MAINPID=\(pid)"
        }
    }
}

extension Duration {
    /// The duration in whole microseconds, rounded down, never negative.
    public var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        let micros = seconds.multipliedReportingOverflow(by: 1_000_000)
        if micros.overflow { return seconds < 0 ? 0 : .max }
        return max(0, micros.partialValue + attoseconds / 1_000_000_000_000)
    }
}
