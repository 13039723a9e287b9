import DriftSystem
import Hardware
import Logging
import ServiceLifecycle

/// Drives the box's LEDs (status, bottle, radio, GPS) from the box's state
/// through the one mapping (`LEDMapping`) and the pattern player.
///
/// The state is sampled once a second (and the LEDs re-rendered at every
/// pattern edge in between), so a fault shows as its blink code within a
/// second. Each cycle beats into the health registry: the LED loop is a
/// watched main loop.
public struct LEDService: Service {
    public static let componentName = "leds"

    let outputs: [LEDRole: GPIOOutputRequest]
    let state: @Sendable (Duration) -> BoxBodyState
    let mapping: LEDMapping
    let refresh: Duration
    let health: HealthRegistry
    let logger: Logger
    /// When the LED test (walk every LED) started, if one runs.
    let ledTest: @Sendable (Duration) -> Duration?

    /// - Parameters:
    ///   - outputs: the requested LED lines by role (missing roles are not fitted).
    ///   - state: the box's state at a monotonic instant.
    public init(
        outputs: [LEDRole: GPIOOutputRequest], mapping: LEDMapping = LEDMapping(), refresh: Duration = .seconds(1),
        health: HealthRegistry, logger: Logger, ledTest: @escaping @Sendable (Duration) -> Duration? = { _ in nil },
        state: @escaping @Sendable (Duration) -> BoxBodyState
    ) {
        self.ledTest = ledTest
        self.outputs = outputs
        self.state = state
        self.mapping = mapping
        self.refresh = refresh
        self.health = health
        self.logger = logger
        health.register(Self.componentName, maximumSilence: max(refresh * 5, .seconds(5)))
    }

    public func run() async throws {
        defer {
            for output in outputs.values { try? output.set(false) }
            health.unregister(Self.componentName)
        }
        do {
            try await cancelWhenGracefulShutdown { try await loop() }
        } catch is CancellationError {}
    }

    private func loop() async throws {
        var player = LEDPlayer()
        var levels: [LEDRole: Bool] = [:]
        var nextRefresh = Duration.zero
        while true {
            let now = MonotonicTime.now()
            if now >= nextRefresh {
                health.beat(Self.componentName)
                let current = state(now)
                nextRefresh = now + refresh
                if let start = ledTest(now), let walk = LEDMapping.ledTest(startedAt: start, now: now) {
                    player.update(walk, now: now)
                    if let step = LEDMapping.ledTestNextStep(startedAt: start, now: now), step < nextRefresh { nextRefresh = step }
                } else {
                    player.update(mapping.shows(for: current, now: now), now: now)
                    if let reevaluate = mapping.nextReevaluation(for: current, now: now), reevaluate < nextRefresh {
                        nextRefresh = max(reevaluate, now + .milliseconds(10))
                    }
                }
            }
            for (role, output) in outputs {
                let level = player.level(role, at: now)
                if levels[role] != level {
                    do {
                        try output.set(level)
                        levels[role] = level
                    } catch {
                        logger.error("LED line failed", metadata: ["led": "\(role.rawValue)", "error": "\(error)"])
                        health.setFault(Self.componentName, "\(role.rawValue) LED: \(error)")
                    }
                }
            }
            var wake = nextRefresh
            if let change = player.nextChange(after: now), change < wake { wake = change }
            let delay = wake - MonotonicTime.now()
            if delay > .zero { try await Task.sleep(for: delay) }
        }
    }
}
