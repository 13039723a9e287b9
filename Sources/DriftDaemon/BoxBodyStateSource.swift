import DriftCore
import DriftStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Gathers what the LEDs show from the rest of the daemon: faults and stalls
/// from the health registry, whether the config file is broken, and the
/// bottles and chats at this box from the store.
///
/// The bottle summary is cached: it is read from the store only after a bottle
/// event (``run()`` follows the event bus), on first use, and at most every
/// ``bottleRecheck`` as a safety net — not on every LED refresh. Whatever changes
/// the LEDs (a bottle event, a fault appearing or clearing, a button display) is
/// signalled on ``changes``, which the LED service waits on.
final class BoxBodyStateSource: Service, Sendable {
    let health: HealthRegistry
    let store: BottleStore
    let configInvalid: Bool
    let gps: GPSStatus
    let gpsConfigured: Bool
    let logger: Logger
    let events: EventBus?
    /// A temporary status LED display requested by a button (status code, selftest result).
    private let override = Mutex<BoxBodyState.StatusOverride?>(nil)
    private let radioActivity = Mutex<Duration?>(nil)
    /// When the LED test (walk every LED) was started, if it runs.
    private let ledTest = Mutex<Duration?>(nil)
    /// The bottles at this box as the LEDs show them, and when they were read (monotonic).
    private let bottles = Mutex<(summary: BottleSummary, readAt: Duration)?>(nil)
    /// Bumped by every ``bottlesChanged()``, so a read racing with an event is not cached.
    private let bottleGeneration = Mutex(0)
    /// Signals a change of what the LEDs show (single consumer: the LED service).
    let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation
    /// Store reads of the bottle summary (for tests and the idle measurement).
    private let storeReads = Mutex(0)

    /// How often the bottle summary is re-read even without events.
    static let bottleRecheck = Duration.seconds(60)

    /// What the bottle LED needs from the store.
    struct BottleSummary: Sendable, Equatable {
        var openable = 0
        var chatAlive = false
        /// The earliest deadline of the dying chats here (wall clock).
        var dyingDeadline: Date?
        var hasDying = false
    }

    /// Shows the status blink code of the current faults (or steady when healthy) for a while.
    func showStatusCode(at now: Duration) {
        let faults = state(at: now).faults
        override.withLock { $0 = LEDMapping.statusCodeOverride(faults: faults, now: now) }
        noteChange()
    }

    /// Shows a selftest result on the status LED for 5 s.
    func showSelftestResult(passed: Bool, at now: Duration) {
        override.withLock { $0 = .init(pattern: LEDMapping.selftestResult(passed: passed), until: now + .seconds(5)) }
        noteChange()
    }

    /// Starts the LED test (each LED lit in turn).
    func startLEDTest(at now: Duration) {
        ledTest.withLock { $0 = now }
        noteChange()
    }

    /// The radio sent or heard a frame (the radio LED flashes).
    func noteRadioActivity(at now: Duration) {
        radioActivity.withLock { $0 = now }
        noteChange()
    }

    /// Tells the LED service that something it shows may have changed.
    func noteChange() {
        changed.yield()
    }

    /// The bottles changed (a lifecycle event): re-read them at the next refresh.
    func bottlesChanged() {
        bottleGeneration.withLock { $0 += 1 }
        bottles.withLock { $0 = nil }
        noteChange()
    }

    /// How many times the bottle summary was read from the store.
    var bottleStoreReads: Int { storeReads.withLock { $0 } }

    /// Follows the event bus until shutdown: bottle state events invalidate the bottle summary.
    func run() async throws {
        guard let events else {
            try? await gracefulShutdown()
            return
        }
        let stream = await events.subscribe()
        await cancelWhenGracefulShutdown {
            for await event in stream where Self.changesBottleLED(event.kind) {
                self.bottlesChanged()
            }
        }
    }

    /// Whether an event can change what the bottle LED shows (states and countdowns, not chat lines).
    static func changesBottleLED(_ kind: DriftEvent.Kind) -> Bool {
        switch kind {
        case .becameOpenable, .locked, .firstOpen, .dying, .rescued, .expired: return true
        case .participantJoined, .linePosted, .linesWhileAway, .presenceProved: return false
        }
    }

    /// When the running LED test started, if one runs at `now`.
    func ledTestStart(at now: Duration) -> Duration? {
        ledTest.withLock { start in
            guard let begun = start else { return nil }
            if LEDMapping.ledTest(startedAt: begun, now: now) == nil {
                start = nil
                return nil
            }
            return begun
        }
    }

    /// Health components whose faults map to a blink code.
    static let faultClasses: [String: FaultClass] = [
        DiskSpaceCheck.component: .storageError,
        WeatherService.component: .sensorFault,
        RainGaugeService.component: .sensorFault,
        DS18B20Service.component: .sensorFault,
        MeshService.component: .radioAbsent,
    ]

    init(health: HealthRegistry, store: BottleStore, configInvalid: Bool, gps: GPSStatus, gpsConfigured: Bool, logger: Logger,
         events: EventBus? = nil) {
        self.gps = gps
        self.gpsConfigured = gpsConfigured
        self.health = health
        self.store = store
        self.configInvalid = configInvalid
        self.logger = logger
        self.events = events
        (changes, changed) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        health.observeFaults { [changed] in changed.yield() }
    }

    /// The state at `now` (monotonic), reading the store once.
    func state(at now: Duration) -> BoxBodyState {
        let report = health.evaluate()
        var faults = Set(report.faults.keys.compactMap { Self.faultClasses[$0] })
        if configInvalid { faults.insert(.configError) }
        let reception: BoxBodyState.GPS = switch gps.snapshot.reception {
        case .absent: .absent
        case .searching: .searching
        case .fix: .fix
        }
        if gpsConfigured, reception == .absent { faults.insert(.gpsAbsent) }
        var state = BoxBodyState(faults: faults, loopsStalled: !report.isAlive, gps: reception)
        state.lastRadioActivity = radioActivity.withLock { $0 }
        state.statusOverride = override.withLock { current in
            if let active = current, now >= active.until { current = nil }
            return current
        }
        if let summary = bottleSummary(at: now) {
            state.openableBottles = summary.openable
            state.chatAlive = summary.chatAlive
            if summary.hasDying {
                let remaining = summary.dyingDeadline?.timeIntervalSince(Date()) ?? 0
                state.dyingChatRemaining = .milliseconds(Int64(max(0, remaining) * 1000))
            }
        } else {
            state.faults.insert(.storageError)
        }
        return state
    }

    /// The cached bottle summary, read from the store when invalidated or older than
    /// ``bottleRecheck``; `nil` when the store cannot be read.
    private func bottleSummary(at now: Duration) -> BottleSummary? {
        if let cached = bottles.withLock({ $0 }), now >= cached.readAt, now - cached.readAt < Self.bottleRecheck {
            return cached.summary
        }
        storeReads.withLock { $0 += 1 }
        let generation = bottleGeneration.withLock { $0 }
        do {
            var summary = BottleSummary()
            let live = try store.bottles(in: [.openable, .active, .dying])
            summary.openable = live.filter { $0.state == .openable }.count
            summary.chatAlive = live.contains { $0.state == .active }
            let dying = live.filter { $0.state == .dying }.map(\.id)
            if !dying.isEmpty {
                summary.hasDying = true
                let survivals = try store.survivals()
                summary.dyingDeadline = dying.compactMap { survivals[$0]?.nextDeadline }.min()
            }
            if bottleGeneration.withLock({ $0 }) == generation {
                bottles.withLock { $0 = (summary, now) }
            }
            return summary
        } catch {
            logger.error("cannot read bottles for the LEDs", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
