import DriftSystem
import Hardware
import Logging
import ServiceLifecycle
import Synchronization

/// Drives the box's LEDs (status, bottle, radio, GPS) from the box's state
/// through the one mapping (`LEDMapping`) and the pattern player.
///
/// Event-driven: the loop sleeps until the next level change of a fitted LED
/// (the pattern's next edge), a time-based change of the mapping (an override
/// or a countdown threshold), or a `changes` signal (bottle events, faults,
/// button displays). The state is re-read at such a signal and otherwise at
/// most every `refresh`, piggybacking on pattern edges when there are any; with
/// nothing blinking in software the loop still wakes every `maximumIdle` (10 s) to
/// beat into the health registry (the LED loop is a watched main loop). GPS
/// reception and the watchdog's verdict on stalled loops are signalled like faults.
///
/// Without a `changes` stream the state is polled every `refresh`.
///
/// A kernel LED (``LEDOutput/kernel(_:)``) that can play a repeating pattern gets it once, when
/// it changes, and blinks on the kernel's timer: its edges wake nothing here.
public struct LEDService: Service {
    public static let componentName = "leds"

    let outputs: [LEDRole: LEDOutput]
    let state: @Sendable (Duration) -> BoxBodyState
    let mapping: LEDMapping
    let refresh: Duration
    let maximumIdle: Duration
    let changes: AsyncStream<Void>?
    let health: HealthRegistry
    let logger: Logger
    /// When the LED test (walk every LED) started, if one runs.
    let ledTest: @Sendable (Duration) -> Duration?
    /// Blink edges, refreshes and the health beat run on this clock (a manual one in tests).
    let clock: MonotonicClock

    /// - Parameters:
    ///   - outputs: the requested LED lines by role (missing roles are not fitted).
    ///   - refresh: how stale the state may get when nothing signals a change.
    ///   - maximumIdle: the longest sleep (health beat), at least `refresh`.
    ///   - changes: signals that the box state changed (``BoxBodyStateSource/changes``).
    ///   - clock: the monotonic clock the LEDs blink on (``MonotonicClock/system`` on a box).
    ///   - state: the box's state at a monotonic instant.
    public init(
        outputs: [LEDRole: LEDOutput], mapping: LEDMapping = LEDMapping(), refresh: Duration = .seconds(1),
        maximumIdle: Duration = .seconds(10), changes: AsyncStream<Void>? = nil,
        health: HealthRegistry, logger: Logger, ledTest: @escaping @Sendable (Duration) -> Duration? = { _ in nil },
        clock: MonotonicClock = .system, state: @escaping @Sendable (Duration) -> BoxBodyState
    ) {
        self.ledTest = ledTest
        self.clock = clock
        self.outputs = outputs
        self.state = state
        self.mapping = mapping
        self.refresh = refresh
        self.maximumIdle = changes == nil ? refresh : max(maximumIdle, refresh)
        self.changes = changes
        self.health = health
        self.logger = logger
        health.register(Self.componentName, maximumSilence: max(self.maximumIdle * 5, .seconds(5)))
    }

    public func run() async throws {
        defer {
            for output in outputs.values { output.turnOff() }
            health.unregister(Self.componentName)
        }
        do {
            try await cancelWhenGracefulShutdown { try await loop() }
        } catch is CancellationError {}
    }

    private func loop() async throws {
        // One wake-up inbox: the change signal and the timer both post into it.
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let changed = ChangeFlag()
        let fitted = Set(outputs.keys)
        try await withThrowingDiscardingTaskGroup { group in
            if let changes {
                group.addTask {
                    for await _ in changes {
                        changed.set()
                        wake.yield()
                    }
                }
            }
            var cancelTimer: (@Sendable () -> Void)?
            defer { cancelTimer?() }
            var iterator = wakes.makeAsyncIterator()
            var player = LEDPlayer()
            var levels: [LEDRole: Bool] = [:]
            var nextRefresh = Duration.zero
            var reevaluate: Duration?
            var lastBeat = Duration.zero
            // What each kernel LED repeats on its own (pattern, start); such LEDs wake nothing here.
            var handedOver: [LEDRole: (pattern: LEDPattern, start: Duration)] = [:]
            var cannotPlay = Set<LEDRole>()
            while true {
                let now = clock.now()
                let signalled = changed.take()
                if now - lastBeat >= .seconds(1) || now < lastBeat {
                    health.beat(Self.componentName)
                    lastBeat = now
                }
                if signalled || now >= nextRefresh || reevaluate.map({ now >= $0 }) == true {
                    let current = state(now)
                    nextRefresh = now + refresh
                    reevaluate = nil
                    if let start = ledTest(now), let walk = LEDMapping.ledTest(startedAt: start, now: now) {
                        player.update(walk, now: now)
                        reevaluate = LEDMapping.ledTestNextStep(startedAt: start, now: now)
                    } else {
                        player.update(mapping.shows(for: current, now: now), now: now)
                        reevaluate = mapping.nextReevaluation(for: current, now: now).map { max($0, now + .milliseconds(10)) }
                    }
                }
                for (role, output) in outputs {
                    let pattern = player.pattern(role)
                    let start = player.start(role) ?? now
                    if !cannotPlay.contains(role), let cycle = output.cycle(for: pattern, at: now - start) {
                        guard handedOver[role].map({ $0.pattern != pattern || $0.start != start }) ?? true else { continue }
                        do {
                            try output.play(cycle)
                            handedOver[role] = (pattern, start)
                            levels[role] = nil
                            continue
                        } catch {
                            logger.error("LED pattern not taken by the kernel; driftd blinks it", metadata: [
                                "led": "\(role.rawValue)", "pattern": "\(pattern)", "error": "\(error)"])
                            cannotPlay.insert(role)
                        }
                    }
                    handedOver[role] = nil
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
                // Sleep until a fitted LED changes, the mapping changes by time, or the idle limit.
                // A due state refresh waits for the next edge, unless nothing blinks.
                var wakeAt = now + maximumIdle
                if let edge = player.nextChange(after: now, roles: fitted.subtracting(handedOver.keys)), edge < wakeAt { wakeAt = edge }
                if let reevaluate, reevaluate < wakeAt { wakeAt = reevaluate }
                if changes == nil, nextRefresh < wakeAt { wakeAt = nextRefresh }
                cancelTimer?()
                let delay = wakeAt - clock.now()
                if delay > .zero {
                    cancelTimer = clock.after(delay) { wake.yield() }
                    guard await iterator.next() != nil else { break }
                }
                try Task.checkCancellation()
            }
            group.cancelAll()
        }
    }
}

/// A set-and-take flag shared between the change forwarder and the LED loop.
private final class ChangeFlag: Sendable {
    private let flag = Mutex(false)

    func set() { flag.withLock { $0 = true } }

    /// Whether it was set since the last call; clears it.
    func take() -> Bool {
        flag.withLock { value in
            defer { value = false }
            return value
        }
    }
}
