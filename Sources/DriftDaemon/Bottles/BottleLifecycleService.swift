import DriftCore
import DriftStore
import Foundation
import Logging
import ServiceLifecycle

/// The bottle lifecycle processor as a service: on start it finishes interrupted
/// erasures and resumes persisted chat countdowns, then it runs
/// ``BottleProcessor/process(now:)`` when the next deadline comes
/// (``BottleProcessor/nextDeadline(after:)``: a window edge, a sun phase, a delay, an expiry,
/// a reading going stale, a countdown…) and ``BottleProcessor/ingest(_:now:)`` on every
/// ambient input (GPS, sensors, clock sync, the presence button) as it arrives.
///
/// Between deadlines it sleeps: nothing wakes it without a reason. A route that makes a sooner
/// deadline (a new bottle with a delay, a chat whose last visitor left) rings
/// ``BottleProcessor/deadlineMoved``; every `interval` (a minute in production) a pass runs
/// anyway, so a write made around the processor, or a wall-clock step, is caught within it.
/// Every `heartbeat` it asks the processor for its deadline — proof that the processor's
/// thread answers — and beats `bottles` in the ``HealthRegistry``.
///
/// The API reaches the rules through ``processor`` (open, enter, leave, Keep Alive,
/// post, retire). Ends on graceful shutdown; the input stream ending does not stop it.
public struct BottleLifecycleService<TickClock: Clock>: Service where TickClock.Duration == Duration {
    /// The health-registry component name.
    public static var componentName: String { "bottles" }

    /// The rules engine (shared with the API).
    public let processor: BottleProcessor
    let inputs: AsyncStream<AmbientInput>
    let interval: Duration
    let heartbeat: Duration
    let clock: TickClock
    let now: @Sendable () -> Date
    let health: HealthRegistry?
    let logger: Logger

    /// - Parameters:
    ///   - database: the migrated store.
    ///   - dataDirectory: the data directory (media live under `media/bottles/` in it).
    ///   - settings: box values from the configuration (id, secret, time zone, position, country…).
    ///   - events: where events go out (API, LEDs, mesh subscribe).
    ///   - inputs: ambient inputs as they arrive.
    ///   - health: beats `bottles` every heartbeat when given.
    ///   - interval: the longest time between two passes (default a minute).
    ///   - heartbeat: how often, while it sleeps, it checks the processor answers (default 10 s).
    ///   - clock: sleeps until deadlines (inject a test clock).
    ///   - now: the wall clock for domain times.
    ///   - gate: holds GPS states back while no bottle reads them (the daemon's; `nil`: none).
    public init(
        database: DriftDatabase, dataDirectory: String, settings: BottleSettings, events: EventBus,
        inputs: AsyncStream<AmbientInput>, health: HealthRegistry? = nil, logger: Logger,
        interval: Duration = .seconds(60), heartbeat: Duration = .seconds(10), clock: TickClock,
        now: @escaping @Sendable () -> Date = { Date() }, ambient: AmbientState = AmbientState(), gate: AmbientGate? = nil
    ) {
        processor = BottleProcessor(database: database, dataDirectory: dataDirectory, settings: settings, events: events,
                                    logger: logger, ambient: ambient, gate: gate)
        self.inputs = inputs
        self.interval = interval
        self.heartbeat = min(heartbeat, interval)
        self.clock = clock
        self.now = now
        self.health = health
        self.logger = logger
        health?.register(Self.componentName, maximumSilence: max(self.heartbeat * 3, .seconds(5)))
    }

    public func run() async throws {
        let started = await processor.start(now: now())
        health?.beat(Self.componentName)
        logger.info("bottle processor started", metadata: ["transitions": "\(started.transitions.count)", "erased": "\(started.erased.count)"])
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // Both loops wait on the processor's own thread: an input or a deadline wakes
                    // that thread alone, and their calls into the processor stay on it (preferring
                    // the timer wheel's thread, or the pool, would take each step there and back).
                    group.addTask(executorPreference: processor.threadExecutor) { await processor.ingest(inputs, now: now) }
                    group.addTask(executorPreference: processor.threadExecutor) { try await sleepUntilDeadlines() }
                    try await group.waitForAll()
                }
            }
        } catch is CancellationError {}
        health?.unregister(Self.componentName)
        await processor.shutdown()
    }

    /// Runs a pass whenever the processor's next deadline comes or `interval` has gone by since
    /// the last one, and sleeps in between (rung awake by a sooner deadline).
    private func sleepUntilDeadlines() async throws {
        var deadline = await processor.nextDeadline(after: now())
        var lastPass = clock.now
        while true {
            let wallNow = now()
            var wait = min(heartbeat, interval - lastPass.duration(to: clock.now))
            if let deadline {
                let untilDeadline = deadline.timeIntervalSince(wallNow)
                // A deadline the pass just ran should have moved on; if it did not, wait a
                // second rather than spin (the old tick's pace).
                wait = min(wait, untilDeadline > 0 ? .seconds(untilDeadline) : .seconds(1))
            }
            if wait > .zero { await processor.deadlineMoved.wait(timeout: wait, clock: clock) }
            try Task.checkCancellation()
            health?.beat(Self.componentName)
            let current = now()
            let scheduled = await processor.scheduledDeadline
            if scheduled.map({ $0 <= current }) ?? false || lastPass.duration(to: clock.now) >= interval {
                await processor.process(now: current)
                lastPass = clock.now
                deadline = await processor.nextDeadline(after: current)
            } else {
                deadline = scheduled
            }
        }
    }
}

extension BottleLifecycleService where TickClock == ContinuousClock {
    /// The production service: ticks on the continuous clock.
    public init(
        database: DriftDatabase, dataDirectory: String, settings: BottleSettings, events: EventBus,
        inputs: AsyncStream<AmbientInput>, health: HealthRegistry? = nil, logger: Logger,
        interval: Duration = .seconds(60), heartbeat: Duration = .seconds(10), ambient: AmbientState = AmbientState()
    ) {
        self.init(database: database, dataDirectory: dataDirectory, settings: settings, events: events, inputs: inputs,
                  health: health, logger: logger, interval: interval, heartbeat: heartbeat, clock: ContinuousClock(),
                  now: { Date() }, ambient: ambient)
    }
}
