import DriftCore
import DriftStore
import Foundation
import Logging
import ServiceLifecycle

/// The bottle lifecycle processor as a service: on start it finishes interrupted
/// erasures and resumes persisted chat countdowns, then it runs
/// ``BottleProcessor/process(now:)`` on every clock tick (1 s in production) and
/// ``BottleProcessor/ingest(_:now:)`` on every ambient input (GPS, sensors, clock
/// sync, the presence button) as it arrives.
///
/// The API reaches the rules through ``processor`` (open, enter, leave, Keep Alive,
/// post, retire). Beats `bottles` in the ``HealthRegistry`` each tick. Ends on
/// graceful shutdown; the input stream ending does not stop the ticks.
public struct BottleLifecycleService<TickClock: Clock>: Service where TickClock.Duration == Duration {
    /// The health-registry component name.
    public static var componentName: String { "bottles" }

    /// The rules engine (shared with the API).
    public let processor: BottleProcessor
    let inputs: AsyncStream<AmbientInput>
    let interval: Duration
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
    ///   - health: beats `bottles` each tick when given.
    ///   - interval: the tick (default 1 s).
    ///   - clock: sleeps between ticks (inject a test clock).
    ///   - now: the wall clock for domain times.
    public init(
        database: DriftDatabase, dataDirectory: String, settings: BottleSettings, events: EventBus,
        inputs: AsyncStream<AmbientInput>, health: HealthRegistry? = nil, logger: Logger,
        interval: Duration = .seconds(1), clock: TickClock, now: @escaping @Sendable () -> Date = { Date() },
        ambient: AmbientState = AmbientState()
    ) {
        processor = BottleProcessor(database: database, dataDirectory: dataDirectory, settings: settings, events: events,
                                    logger: logger, ambient: ambient)
        self.inputs = inputs
        self.interval = interval
        self.clock = clock
        self.now = now
        self.health = health
        self.logger = logger
        health?.register(Self.componentName, maximumSilence: max(interval * 5, .seconds(5)))
    }

    public func run() async throws {
        let started = await processor.start(now: now())
        health?.beat(Self.componentName)
        logger.info("bottle processor started", metadata: ["transitions": "\(started.transitions.count)", "erased": "\(started.erased.count)"])
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await input in inputs {
                            await processor.ingest(input, now: now())
                        }
                    }
                    group.addTask {
                        while true {
                            try await clock.sleep(for: interval)
                            health?.beat(Self.componentName)
                            await processor.process(now: now())
                        }
                    }
                    try await group.waitForAll()
                }
            }
        } catch is CancellationError {}
        health?.unregister(Self.componentName)
        await processor.shutdown()
    }
}

extension BottleLifecycleService where TickClock == ContinuousClock {
    /// The production service: ticks on the continuous clock.
    public init(
        database: DriftDatabase, dataDirectory: String, settings: BottleSettings, events: EventBus,
        inputs: AsyncStream<AmbientInput>, health: HealthRegistry? = nil, logger: Logger,
        interval: Duration = .seconds(1), ambient: AmbientState = AmbientState()
    ) {
        self.init(database: database, dataDirectory: dataDirectory, settings: settings, events: events, inputs: inputs,
                  health: health, logger: logger, interval: interval, clock: ContinuousClock(), now: { Date() },
                  ambient: ambient)
    }
}
