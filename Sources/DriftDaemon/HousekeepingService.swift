import Logging
import ServiceLifecycle

/// The daemon's periodic main loop: beats into the health registry each tick
/// and runs the registered periodic jobs (later: the bottle lifecycle
/// processor, sensor sampling schedule, store maintenance).
public struct HousekeepingService: Service {
    /// A job run on every tick; thrown errors are logged and counted, never fatal.
    public typealias Job = @Sendable () async throws -> Void

    public static let componentName = "housekeeping"

    let interval: Duration
    let health: HealthRegistry
    let jobs: [(name: String, job: Job)]
    let logger: Logger
    /// Sleeps between ticks (the daemon's timer wheel; a manual clock in tests).
    let clock: any Clock<Duration>

    public init(interval: Duration = .seconds(1), health: HealthRegistry, logger: Logger, jobs: [(name: String, job: Job)] = [],
                clock: any Clock<Duration> = ContinuousClock()) {
        self.interval = interval
        self.clock = clock
        self.health = health
        self.jobs = jobs
        self.logger = logger
        // Allow a few missed ticks before the loop counts as stalled.
        health.register(Self.componentName, maximumSilence: max(interval * 5, .seconds(5)))
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    health.beat(Self.componentName)
                    for (name, job) in jobs {
                        do {
                            try await job()
                        } catch is CancellationError {
                            throw CancellationError()
                        } catch {
                            logger.error("housekeeping job failed", metadata: ["job": "\(name)", "error": "\(error)"])
                        }
                    }
                    try await clock.sleep(for: interval)
                }
            }
        } catch is CancellationError {}
        health.unregister(Self.componentName)
    }
}
