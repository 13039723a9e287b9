import DriftCore
import DriftStore
import Foundation
import Logging
import Synchronization

/// Gathers what the LEDs show from the rest of the daemon: faults and stalls
/// from the health registry, whether the config file is broken, and the
/// bottles and chats at this box from the store.
final class BoxBodyStateSource: Sendable {
    let health: HealthRegistry
    let store: BottleStore
    let configInvalid: Bool
    let gps: GPSStatus
    let gpsConfigured: Bool
    let logger: Logger
    /// A temporary status LED display requested by a button (status code, selftest result).
    private let override = Mutex<BoxBodyState.StatusOverride?>(nil)
    /// When the LED test (walk every LED) was started, if it runs.
    private let ledTest = Mutex<Duration?>(nil)

    /// Shows the status blink code of the current faults (or steady when healthy) for a while.
    func showStatusCode(at now: Duration) {
        let faults = state(at: now).faults
        override.withLock { $0 = LEDMapping.statusCodeOverride(faults: faults, now: now) }
    }

    /// Shows a selftest result on the status LED for 5 s.
    func showSelftestResult(passed: Bool, at now: Duration) {
        override.withLock { $0 = .init(pattern: LEDMapping.selftestResult(passed: passed), until: now + .seconds(5)) }
    }

    /// Starts the LED test (each LED lit in turn).
    func startLEDTest(at now: Duration) {
        ledTest.withLock { $0 = now }
    }

    /// When the running LED test started, if one runs at `now`.
    func ledTestStart(at now: Duration) -> Duration? {
        ledTest.withLock { start in
            guard let begun = start else { return nil }
            if LEDMapping.ledTest(startedAt: begun, now: now) == nil {
                start = nil
                return nil
            }
            return begun
        }
    }

    /// Health components whose faults map to a blink code.
    static let faultClasses: [String: FaultClass] = [
        DiskSpaceCheck.component: .storageError,
        WeatherService.component: .sensorFault,
    ]

    init(health: HealthRegistry, store: BottleStore, configInvalid: Bool, gps: GPSStatus, gpsConfigured: Bool, logger: Logger) {
        self.gps = gps
        self.gpsConfigured = gpsConfigured
        self.health = health
        self.store = store
        self.configInvalid = configInvalid
        self.logger = logger
    }

    /// The state at `now` (monotonic), reading the store once.
    func state(at now: Duration) -> BoxBodyState {
        let report = health.evaluate()
        var faults = Set(report.faults.keys.compactMap { Self.faultClasses[$0] })
        if configInvalid { faults.insert(.configError) }
        let reception: BoxBodyState.GPS = switch gps.snapshot.reception {
        case .absent: .absent
        case .searching: .searching
        case .fix: .fix
        }
        if gpsConfigured, reception == .absent { faults.insert(.gpsAbsent) }
        var state = BoxBodyState(faults: faults, loopsStalled: !report.isAlive, gps: reception)
        state.statusOverride = override.withLock { current in
            if let active = current, now >= active.until { current = nil }
            return current
        }
        do {
            let live = try store.bottles(in: [.openable, .active, .dying])
            state.openableBottles = live.filter { $0.state == .openable }.count
            state.chatAlive = live.contains { $0.state == .active }
            let dying = live.filter { $0.state == .dying }.map(\.id)
            if !dying.isEmpty {
                let survivals = try store.survivals()
                let wallNow = Date()
                let remaining = dying.compactMap { survivals[$0]?.nextDeadline?.timeIntervalSince(wallNow) }.min() ?? 0
                state.dyingChatRemaining = .milliseconds(Int64(max(0, remaining) * 1000))
            }
        } catch {
            state.faults.insert(.storageError)
            logger.error("cannot read bottles for the LEDs", metadata: ["error": "\(error)"])
        }
        return state
    }
}
