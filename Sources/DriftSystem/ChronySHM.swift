import CDriftSys
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A time sample writer for chrony's (and ntpd's) `SHM` reference clock, the way gpsd
/// feeds it (`ntpshm.c`): a SysV shared memory segment with key `0x4E545030 + unit`
/// holding one `struct shmTime`.
///
/// chrony: `refclock SHM 0 refid GPS precision -1 offset 0.0` reads unit 0. Units 0
/// and 1 are created owner-only (root), 2 and 3 world-writable, as gpsd does.
public final class ChronySHM: @unchecked Sendable {
    /// NTP's SHM base key ("NTP0").
    public static let baseKey: Int32 = 0x4E54_5030

    /// The segment id (`shmget`).
    public let segmentID: Int32
    private let segment: UnsafeMutablePointer<drift_shm_time>
    private var detached = false

    /// Attaches to (creating if needed) the segment of `unit` 0…3.
    public convenience init(unit: Int) throws(SystemError) {
        guard (0...3).contains(unit) else { throw SystemError(operation: "shmget", errno: EINVAL, subject: "unit \(unit)") }
        try self.init(key: Self.baseKey + Int32(unit), permissions: unit < 2 ? 0o600 : 0o666)
    }

    /// Attaches to (creating if needed) the segment with `key` (`IPC_PRIVATE` = 0 in tests).
    public init(key: Int32, permissions: Int32 = 0o600) throws(SystemError) {
        let id = try Syscall.retryingEINTR("shmget", subject: String(key, radix: 16)) { drift_shm_time_get(key, permissions) }
        guard let pointer = drift_shm_time_attach(id) else {
            throw SystemError(operation: "shmat", errno: Syscall.errno, subject: String(key, radix: 16))
        }
        segmentID = id
        segment = pointer
    }

    deinit { detach() }

    /// Publishes one sample: the reference time (`clock`, GPS UTC) and the system clock
    /// when it was taken (`receive`). `precision` is log2 seconds (-1 ≈ 0.5 s, NMEA without PPS).
    public func write(clock: Date, receive: Date, leap: Int32 = 0, precision: Int32 = -1) {
        let (clockSeconds, clockNanos) = Self.split(clock)
        let (receiveSeconds, receiveNanos) = Self.split(receive)
        drift_shm_time_write(segment, clockSeconds, clockNanos, receiveSeconds, receiveNanos, leap, precision)
    }

    /// Detaches (the segment stays for the reader).
    public func detach() {
        guard !detached else { return }
        detached = true
        _ = drift_shm_detach(segment)
    }

    /// Marks the segment for removal (tests with private segments).
    public func remove() throws(SystemError) {
        try Syscall.retryingEINTR("shmctl", subject: "IPC_RMID") { drift_shm_remove(segmentID) }
    }

    static func split(_ date: Date) -> (Int64, Int) {
        let interval = date.timeIntervalSince1970
        let seconds = interval.rounded(.down)
        return (Int64(seconds), min(999_999_999, max(0, Int(((interval - seconds) * 1e9).rounded()))))
    }
}
