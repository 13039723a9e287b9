import Foundation
import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// The last word on a shutdown that does not end: once the daemon starts to stop (a
/// graceful shutdown, or a service that ended and made the group cancel the rest), a watch
/// on a thread of its own gives the whole stop `limit`; if the process is still there then,
/// it logs which stop overran and exits with status 70, and systemd restarts it.
///
/// ServiceGroup's own answer to a cancellation that takes too long is `fatalError` — a SIGILL
/// and a core dump, which the load review saw when a failed service's cancellation overran
/// its 2 s. ``configure(_:budget:)`` turns that off; this service takes its place. Its watch
/// runs on a thread, not on the cooperative pool, because a stuck pool may be what holds
/// the stop up.
public struct ShutdownDeadline: Service {
    /// Arms the watch: after `limit`, `expired` is called (unless the process ended first).
    public typealias Watch = @Sendable (_ limit: Duration, _ expired: @escaping @Sendable () -> Void) -> Void

    let limit: Duration
    let logger: Logger
    let watch: Watch
    let giveUp: @Sendable () -> Void

    /// - Parameters:
    ///   - limit: how long the whole stop may take (the graceful budget plus a margin).
    ///   - watch: arms the timer (default: a thread that sleeps `limit`).
    ///   - giveUp: what ends the process (default: `_exit(70)`).
    public init(limit: Duration, logger: Logger, watch: @escaping Watch = ShutdownDeadline.thread,
                giveUp: @escaping @Sendable () -> Void = { _exit(70) }) {
        self.limit = limit
        self.logger = logger
        self.watch = watch
        self.giveUp = giveUp
    }

    /// The daemon's shutdown policy on `configuration`: `budget` for the graceful part, and
    /// no cancellation limit of ServiceGroup's own (its `fatalError`); a ``ShutdownDeadline``
    /// last in the group's services bounds the whole stop instead.
    public static func configure(_ configuration: inout ServiceGroupConfiguration, budget: Duration) {
        configuration.maximumGracefulShutdownDuration = budget
        configuration.maximumCancellationDuration = nil
    }

    public func run() async throws {
        let cause: String
        do {
            try await gracefulShutdown()
            cause = "graceful shutdown"
        } catch {
            cause = "a service ended"   // the group cancelled everything
        }
        let (logger, limit, giveUp) = (logger, limit, giveUp)
        logger.debug("stopping; the stop may take up to \(limit)", metadata: ["cause": "\(cause)"])
        watch(limit) {
            logger.critical("the stop did not finish in time; exiting", metadata: ["limit": "\(limit)", "cause": "\(cause)"])
            giveUp()
        }
    }

    /// The production watch: a thread of its own that sleeps `limit`, then calls `expired`.
    /// It is never joined: it ends with the process, which is the point.
    public static let thread: Watch = { limit, expired in
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        let thread = Thread {
            Thread.sleep(forTimeInterval: seconds)
            expired()
        }
        thread.name = "shutdown-deadline"
        thread.start()
    }
}
