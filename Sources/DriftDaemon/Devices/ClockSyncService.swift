import DriftSystem
import Logging
import ServiceLifecycle

/// Tells the lifecycle processor whether the box's clock can be trusted for
/// time-of-day, date and sun conditions: checks the kernel's synchronisation
/// state every minute and on start, and reports changes.
///
/// A box that boots without a real-time clock and without a network keeps its
/// time conditions *not satisfied* ("the box's clock is not synchronised")
/// rather than opening bottles at the wrong hour.
public struct ClockSyncService: Service {
    let ambient: AsyncStream<AmbientInput>.Continuation
    let logger: Logger
    let interval: Duration
    let clock: any Clock<Duration>
    let probe: @Sendable () -> Bool?

    public init(
        ambient: AsyncStream<AmbientInput>.Continuation, logger: Logger, interval: Duration = .seconds(60),
        clock: any Clock<Duration> = ContinuousClock(),
        probe: @escaping @Sendable () -> Bool? = { ClockSync.isSynchronized() }
    ) {
        self.ambient = ambient
        self.logger = logger
        self.interval = interval
        self.clock = clock
        self.probe = probe
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await loop() }
        } catch is CancellationError {}
    }

    private func loop() async throws {
        var last: Bool?
        while true {
            // When the kernel will not say, trust the clock (as before this check existed).
            let synchronized = probe() ?? true
            if synchronized != last {
                ambient.yield(.clockSynchronized(synchronized))
                if synchronized {
                    if last != nil { logger.notice("system clock synchronised; time conditions apply again") }
                } else {
                    logger.warning("system clock not synchronised; time, date and sun conditions stay locked")
                }
                last = synchronized
            }
            try await clock.sleep(for: interval)
        }
    }
}
