import Hardware
import Logging
import ServiceLifecycle

/// Tells systemd how the daemon is doing: `READY=1` when it starts (the group
/// starts it last, after the store and devices are up) and the visitor page listens
/// (at most 10 s of waiting for it), `WATCHDOG=1` at half
/// the watchdog interval only while every main loop makes progress
/// (``HealthRegistry/check(interval:)``: judged by beats between ticks, so a busy CPU does
/// not stop the pings and a stuck loop does), `STATUS=` lines
/// when the summary changes, and `STOPPING=1` as soon as shutdown begins. Its ticks run on
/// the injected clock.
///
/// Without `NOTIFY_SOCKET` it still runs the health check and logs stalls, so
/// behaviour is the same under systemd and in a terminal.
public struct NotifyService: Service {
    let notifier: SystemdNotifier?
    let watchdogInterval: Duration?
    let health: HealthRegistry
    let status: @Sendable () -> String
    let logger: Logger
    /// What must be up before `READY=1` (the visitor page listening), and how long to wait for it.
    let readyAfter: (gate: StartupGate, limit: Duration)?
    let clock: any Clock<Duration>
    /// Where the datagrams are sent: a systemd busy with a restart can leave its socket's queue
    /// full, and the send then waits (up to its patience) on this thread, never on the pool.
    private let lane = BlockingLane(name: "sd-notify")

    /// - Parameters:
    ///   - notifier: the systemd socket client, `nil` when not run by systemd.
    ///   - watchdogInterval: `WATCHDOG_USEC` (nil: no pings).
    ///   - health: the registry the main loops beat into.
    ///   - status: builds the one-line `STATUS=` summary.
    public init(
        notifier: SystemdNotifier?, watchdogInterval: Duration?, health: HealthRegistry,
        logger: Logger, readyAfter: (gate: StartupGate, limit: Duration)? = nil, clock: any Clock<Duration> = ContinuousClock(),
        status: @escaping @Sendable () -> String
    ) {
        self.readyAfter = readyAfter
        self.clock = clock
        self.notifier = notifier
        self.watchdogInterval = watchdogInterval
        self.health = health
        self.status = status
        self.logger = logger
    }

    /// How often the loop wakes: half the watchdog interval, or every 30 s without a watchdog.
    var tick: Duration { Self.tick(watchdogInterval: watchdogInterval) }

    static func tick(watchdogInterval: Duration?) -> Duration {
        guard let watchdogInterval else { return .seconds(30) }
        return max(watchdogInterval / 2, .milliseconds(10))
    }

    public func run() async throws {
        if let readyAfter {
            // Shutdown during start-up (another driftd holds the control socket) ends the wait at once.
            let opened = await cancelWhenGracefulShutdown { await readyAfter.gate.wait(atMost: readyAfter.limit, clock: clock) }
            if !opened, !Task.isShuttingDownGracefully, !Task.isCancelled {
                logger.warning("ready without the visitor page; it keeps trying to listen", metadata: ["waited": "\(readyAfter.limit)"])
            }
        }
        let initialStatus = status()
        await send([.ready, .status(initialStatus)])
        logger.notice("ready", metadata: ["status": "\(initialStatus)", "watchdog": "\(watchdogInterval.map { "\($0)" } ?? "off")"])
        do {
            try await cancelWhenGracefulShutdown {
                try await superviseLoop(initialStatus: initialStatus)
            }
        } catch is CancellationError {
            // Graceful shutdown or cancellation: fall through to STOPPING.
        }
        await send([.stopping, .status("stopping")])
        logger.notice("stopping")
    }

    private func superviseLoop(initialStatus: String) async throws {
        var lastStatus = initialStatus
        var withheld = false
        while true {
            try await clock.sleep(for: tick)
            let report = health.check(interval: tick)
            var messages: [NotifyMessage] = []
            if report.isAlive {
                if withheld {
                    logger.notice("all main loops alive again; watchdog pings resumed")
                    withheld = false
                }
                if watchdogInterval != nil { messages.append(.watchdog) }
            } else if !withheld {
                withheld = true
                logger.critical("main loop stalled; withholding watchdog pings", metadata: ["stalled": "\(report.stalled.joined(separator: ","))"])
            }
            let current = status()
            if current != lastStatus {
                lastStatus = current
                messages.append(.status(current))
            }
            await send(messages)
        }
    }

    private func send(_ messages: [NotifyMessage]) async {
        guard let notifier, !messages.isEmpty else { return }
        do {
            try await lane.run { try notifier.send(messages) }
        } catch {
            logger.warning("sd_notify failed", metadata: ["error": "\(error)"])
        }
    }
}
