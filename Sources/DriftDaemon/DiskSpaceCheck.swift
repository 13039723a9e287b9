import Foundation
import Logging
import Synchronization

/// Watches the data partition's free space: below `storage.min_free_mb` it is a
/// `storage` fault (status line, `driftd status`, the status LED) and logged
/// once; back above, the fault clears. Checked at most once a minute.
final class DiskSpaceCheck: Sendable {
    static let component = "storage"

    let path: String
    let minimumFreeMB: Int64
    let health: HealthRegistry
    let logger: Logger
    let interval: Duration
    private let state = Mutex<(lastCheck: ContinuousClock.Instant?, low: Bool)>((nil, false))

    init(path: String, minimumFreeMB: Int64, health: HealthRegistry, logger: Logger, interval: Duration = .seconds(60)) {
        self.path = path
        self.minimumFreeMB = minimumFreeMB
        self.health = health
        self.logger = logger
        self.interval = interval
        health.register(Self.component, maximumSilence: nil)
    }

    /// Checks now if the last check is older than the interval.
    func run(now: ContinuousClock.Instant = .now) {
        let due = state.withLock { state -> Bool in
            if let last = state.lastCheck, now - last < interval { return false }
            state.lastCheck = now
            return true
        }
        guard due, let free = DataDirectory.freeMegabytes(at: path) else { return }
        evaluate(freeMB: free)
    }

    /// Applies one reading of the free space.
    func evaluate(freeMB: Int64) {
        let low = freeMB < minimumFreeMB
        let changed = state.withLock { state -> Bool in
            defer { state.low = low }
            return state.low != low
        }
        guard changed else { return }
        if low {
            let message = "data partition nearly full: \(freeMB) MiB free, below storage.min_free_mb = \(minimumFreeMB)"
            logger.error("\(message)")
            health.setFault(Self.component, message)
        } else {
            logger.notice("data partition has room again", metadata: ["freeMB": "\(freeMB)"])
            health.setFault(Self.component, nil)
        }
    }
}
