import DriftDaemon
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// The load review saw a stop end in ServiceGroup's `fatalError("Cancellation took longer
/// than allowed")` — SIGILL — when a service's cancellation overran 2 s. The daemon's policy
/// has no such limit; ``ShutdownDeadline`` bounds the whole stop and exits cleanly instead.
@Suite("Shutdown deadline: a stop that does not end exits cleanly, never in ServiceGroup's fatal error")
struct ShutdownDeadlineTests {
    /// A service that ignores graceful shutdown and cancellation until the test lets it go,
    /// and says when it was cancelled.
    final class Stuck: Service, Sendable {
        let cancelled = Mutex(false)
        /// Yields once the group cancels it.
        let cancellations: AsyncStream<Void>
        private let cancelling: AsyncStream<Void>.Continuation

        init() {
            (cancellations, cancelling) = AsyncStream.makeStream()
        }
        let release = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let released = Mutex(false)

        func run() async throws {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now = released.withLock { released -> Bool in
                        if released { return true }
                        self.release.withLock { $0 = continuation }
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                cancelled.withLock { $0 = true }
                cancelling.yield()
            }
        }

        func letGo() {
            let waiting = released.withLock { released -> CheckedContinuation<Void, Never>? in
                released = true
                return release.withLock { pending in defer { pending = nil }; return pending }
            }
            waiting?.resume()
        }
    }

    /// A service that ends by itself with an error (the group then cancels the rest).
    struct Failing: Service {
        struct Failed: Error {}
        func run() async throws { throw Failed() }
    }

    /// The test's watch: records what was armed; fires only when the test says so.
    final class ManualWatch: Sendable {
        let armed = Mutex<(limit: Duration, expired: @Sendable () -> Void)?>(nil)
        /// Yields the limit each time the watch is armed.
        let armings: AsyncStream<Duration>
        private let arming: AsyncStream<Duration>.Continuation

        init() {
            (armings, arming) = AsyncStream.makeStream()
        }

        var watch: ShutdownDeadline.Watch {
            { [self] limit, expired in
                armed.withLock { $0 = (limit, expired) }
                arming.yield(limit)
            }
        }
        func fire() { armed.withLock { $0 }?.expired() }
    }

    @Test("graceful shutdown with a service that ignores it and its cancellation: the deadline is armed, fires, and gives up — no fatal error",
          .timeLimit(.minutes(1)), arguments: [false, true])
    func stuckStop(failingService: Bool) async throws {
        let stuck = Stuck()
        let watch = ManualWatch()
        let gaveUp = Mutex(false)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let deadline = ShutdownDeadline(limit: .seconds(14), logger: logger, watch: watch.watch,
                                        giveUp: { gaveUp.withLock { $0 = true }; stuck.letGo() })
        var services: [any Service] = [stuck]
        if failingService { services.append(Failing()) }
        services.append(deadline)
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) }, logger: logger)
        ShutdownDeadline.configure(&configuration, budget: .milliseconds(100))
        #expect(configuration.maximumCancellationDuration == nil)
        let group = ServiceGroup(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try? await group.run() }
            if !failingService { await group.triggerGracefulShutdown() }
            // The stop begins: the watch is armed with the whole limit …
            var armings = watch.armings.makeAsyncIterator()
            #expect(await armings.next() == .seconds(14))
            // … the group gives up on grace and cancels; the stuck service ignores that too.
            var cancellations = stuck.cancellations.makeAsyncIterator()
            _ = await cancellations.next()
            #expect(stuck.cancelled.withLock { $0 })
            // Nothing crashed while it hangs on (no cancellation limit): the deadline decides.
            #expect(!gaveUp.withLock { $0 })
            watch.fire()
            #expect(gaveUp.withLock { $0 })
            try await tasks.waitForAll()
        }
    }
}
