import DriftSystem
import Foundation
import GNSS
import Logging
import Synchronization

/// GPS UTC as the box's time: the GPS service offers it every epoch.
///
/// Only a 3D fix with a date counts. Its time is rollover-corrected against `floor`
/// (``GNSS/GPSTime``). Then:
/// - with `chronyUnit`, every such epoch is written to chrony's SHM refclock segment
///   (chrony decides whether to use it, as with gpsd);
/// - with `setsClock`, while the kernel says the clock is unsynchronised, the system clock
///   is set to GPS time when it is more than `stepThreshold` off. Without `CAP_SYS_TIME`
///   this fails: logged once and reported as a `gps-time` fault, never fatal.
///
/// ``hasSetClock`` tells the clock-sync check that the clock now follows GPS (the kernel
/// keeps saying "unsynchronised" after a `clock_settime`).
public final class GPSTimeSource: Sendable {
    public static let component = "gps-time"
    /// The floor when the build date is not known: no real GPS date can be earlier.
    public static let defaultFloor = Date(timeIntervalSince1970: 1_767_225_600)   // 2026-01-01T00:00:00Z

    /// The floor for a build date `YYYY-MM-DD` (`BuildInfo.buildDate`), midnight UTC; `nil` when malformed.
    public static func floor(buildDate: String) -> Date? {
        GPSDReport.time(iso8601: buildDate + "T00:00:00Z").flatMap(GPSTime.date(of:))
    }

    public struct Settings: Sendable {
        public var floor: Date
        public var setsClock: Bool
        /// chrony SHM unit 0…3, `nil` = off.
        public var chronyUnit: Int?
        /// Seconds of difference below which the clock is not stepped again.
        public var stepThreshold: TimeInterval

        public init(floor: Date = GPSTimeSource.defaultFloor, setsClock: Bool = true, chronyUnit: Int? = nil, stepThreshold: TimeInterval = 1) {
            self.floor = floor
            self.setsClock = setsClock
            self.chronyUnit = chronyUnit
            self.stepThreshold = stepThreshold
        }
    }

    private struct State {
        var shm: ChronySHM?
        var shmFailed = false
        var setFailed = false
        var hasSetClock = false
        var lastTime: Date?
    }

    let settings: Settings
    let health: HealthRegistry
    let logger: Logger
    let isSynchronized: @Sendable () -> Bool?
    let setClock: @Sendable (Date) throws(SystemError) -> Void
    let openSHM: @Sendable (Int) throws(SystemError) -> ChronySHM
    private let state = Mutex(State())

    /// - Parameters:
    ///   - isSynchronized: the kernel's sync state (``DriftSystem/ClockSync``); `nil` = unknown (then the clock is left alone).
    ///   - setClock: sets the system clock (``DriftSystem/SystemClock``).
    public init(
        settings: Settings, health: HealthRegistry, logger: Logger,
        isSynchronized: @escaping @Sendable () -> Bool? = { ClockSync.isSynchronized() },
        setClock: @escaping @Sendable (Date) throws(SystemError) -> Void = { date throws(SystemError) in try SystemClock.set(to: date) },
        openSHM: @escaping @Sendable (Int) throws(SystemError) -> ChronySHM = { unit throws(SystemError) in try ChronySHM(unit: unit) }
    ) {
        self.settings = settings
        self.health = health
        self.logger = logger
        self.isSynchronized = isSynchronized
        self.setClock = setClock
        self.openSHM = openSHM
        health.register(Self.component, maximumSilence: nil)
    }

    /// Whether this source has set the system clock.
    public var hasSetClock: Bool { state.withLock { $0.hasSetClock } }

    /// The clock-sync answer with GPS time taken into account: the kernel's `synchronized`
    /// (`nil` = unknown, passed on), or `true` once this source has set the clock (the kernel
    /// keeps `STA_UNSYNC` after a `clock_settime`).
    public func clockTrusted(kernel synchronized: Bool?) -> Bool? {
        synchronized.map { $0 || hasSetClock }
    }

    /// The last corrected GPS time offered.
    public var lastTime: Date? { state.withLock { $0.lastTime } }

    /// One epoch, received when the system clock said `receivedAt`.
    public func offer(_ fix: GNSSFix, receivedAt: Date) {
        guard fix.mode == .threeD, let time = fix.time, let gpsTime = GPSTime.corrected(time, floor: settings.floor) else { return }
        state.withLock { $0.lastTime = gpsTime }
        if let unit = settings.chronyUnit { writeSHM(unit: unit, gpsTime: gpsTime, receivedAt: receivedAt) }
        guard settings.setsClock, isSynchronized() == false,
              abs(gpsTime.timeIntervalSince(receivedAt)) > settings.stepThreshold else { return }
        let alreadyFailed = state.withLock { $0.setFailed }
        guard !alreadyFailed else { return }
        do throws(SystemError) {
            // NMEA arrives 0.1–0.5 s after the second it names; below the 1 s step threshold.
            try setClock(gpsTime)
            state.withLock { $0.hasSetClock = true }
            health.setFault(Self.component, nil)
            logger.notice("system clock set from GPS", metadata: ["gps_time": "\(gpsTime)", "was": "\(receivedAt)"])
        } catch {
            state.withLock { $0.setFailed = true }
            health.setFault(Self.component, "cannot set the system clock from GPS: \(error)")
            logger.error("cannot set the system clock from GPS (needs CAP_SYS_TIME); not trying again", metadata: ["error": "\(error)"])
        }
    }

    private func writeSHM(unit: Int, gpsTime: Date, receivedAt: Date) {
        let shm: ChronySHM? = state.withLock { state in
            if let shm = state.shm { return shm }
            guard !state.shmFailed else { return nil }
            do throws(SystemError) {
                state.shm = try openSHM(unit)
                logger.info("feeding chrony through SHM", metadata: ["unit": "\(unit)"])
            } catch {
                state.shmFailed = true
                health.setFault(Self.component, "chrony SHM unit \(unit): \(error)")
                logger.error("cannot attach chrony's SHM segment; not trying again", metadata: ["unit": "\(unit)", "error": "\(error)"])
            }
            return state.shm
        }
        shm?.write(clock: gpsTime, receive: receivedAt)
    }
}
