import CDriftSys

/// Whether the kernel considers the system clock synchronised (NTP, chrony, or
/// a GPS refclock): `adjtimex(2)` reports `TIME_ERROR` / `STA_UNSYNC` until a
/// time daemon has disciplined it. A box without a real-time clock boots with a
/// wrong date until then.
public enum ClockSync {
    /// `true` when synchronised, `false` when not, `nil` when the kernel would not say.
    public static func isSynchronized() -> Bool? {
        var status: Int32 = 0
        let state = drift_clock_state(&status)
        if state < 0 { return nil }
        let timeError: Int32 = 5
        let unsynchronized: Int32 = 0x0040
        return state != timeError && (status & unsynchronized) == 0
    }
}
