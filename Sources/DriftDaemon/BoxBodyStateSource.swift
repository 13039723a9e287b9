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
/// ``bottleRecheck`` as a safety net — not on every LED refresh. The read runs on a
/// thread of its own (``BlockingLane``), never on the cooperative pool nor in
/// ``state(at:)``: a refresh that finds the summary stale asks ``run()`` to read it and
/// shows the previous one meanwhile; the new one is signalled on ``changes``. Whatever
/// changes the LEDs (a bottle event, a fault appearing or clearing, a button display, a
/// fresh bottle summary) is signalled on ``changes``, which the LED service waits on.
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
    /// The bottles at this box as the LEDs show them.
    private let bottles = Mutex(BottleCache())
    /// Asks ``run()`` to read the bottle summary (the monotonic instant of the request).
    private let readRequests: AsyncStream<Duration>
    private let readRequest: AsyncStream<Duration>.Continuation
    /// The store reads run here, never on the cooperative pool.
    private let lane = BlockingLane(name: "led-state")
    /// Signals a change of what the LEDs show (single consumer: the LED service).
    let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation
    /// Store reads of the bottle summary (for tests and the idle measurement).
    private let storeReads = Mutex(0)

    /// The last bottle summary read and whether it is still current.
    struct BottleCache: Sendable {
        /// The last summary read; `nil` before the first read.
        var summary: BottleSummary?
        /// When it was read (monotonic).
        var readAt: Duration?
        /// The last read failed (the storage fault shows until a read succeeds).
        var failed = false
        /// Bumped by every ``bottlesChanged()``, so a read racing with an event is not taken as current.
        var generation = 0
        /// The generation the summary was read at.
        var readGeneration = -1
        /// A read was asked for and has not finished.
        var reading = false

        func isCurrent(at now: Duration) -> Bool {
            guard summary != nil || failed, let readAt, readGeneration == generation else { return false }
            return now >= readAt && now - readAt < BoxBodyStateSource.bottleRecheck
        }
    }

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
        bottles.withLock { $0.generation += 1 }
        noteChange()
    }

    /// How many times the bottle summary was read from the store.
    var bottleStoreReads: Int { storeReads.withLock { $0 } }

    /// Until shutdown: reads the bottle summary when a refresh asks for it, and follows the
    /// event bus, whose bottle state events make the summary stale.
    func run() async throws {
        let stream = await events?.subscribe()
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await at in self.readRequests {
                        await self.readBottles(at: at)
                    }
                }
                if let stream {
                    group.addTask {
                        for await event in stream where Self.changesBottleLED(event.kind) {
                            self.bottlesChanged()
                        }
                    }
                }
            }
        }
    }

    /// Reads the bottle summary from the store on the lane, keeps it and signals ``changes``.
    func readBottles(at now: Duration) async {
        storeReads.withLock { $0 += 1 }
        let generation = bottles.withLock { $0.generation }
        let summary: BottleSummary?
        do {
            summary = try await lane.run { [store] in try Self.summary(of: store) }
        } catch {
            logger.error("cannot read bottles for the LEDs", metadata: ["error": "\(error)"])
            summary = nil
        }
        bottles.withLock { cache in
            cache.reading = false
            cache.readAt = now
            cache.readGeneration = generation
            cache.failed = summary == nil
            if let summary { cache.summary = summary }
        }
        noteChange()
    }

    static func summary(of store: BottleStore) throws -> BottleSummary {
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
        return summary
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
        (readRequests, readRequest) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        health.observeFaults { [changed] in changed.yield() }
        gps.observeReception { [changed] in changed.yield() }
    }

    /// The state at `now` (monotonic). Never reads the store: a stale bottle summary is
    /// shown while ``run()`` reads the current one.
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
        let cache = bottleCache(at: now)
        if let summary = cache.summary {
            state.openableBottles = summary.openable
            state.chatAlive = summary.chatAlive
            if summary.hasDying {
                let remaining = summary.dyingDeadline?.timeIntervalSince(Date()) ?? 0
                state.dyingChatRemaining = .milliseconds(Int64(max(0, remaining) * 1000))
            }
        }
        if cache.failed { state.faults.insert(.storageError) }
        return state
    }

    /// The cached bottle summary; asks ``run()`` for a read when it is stale (after an event,
    /// or older than ``bottleRecheck``) and none is under way.
    private func bottleCache(at now: Duration) -> BottleCache {
        let (cache, ask) = bottles.withLock { cache -> (BottleCache, Bool) in
            guard !cache.isCurrent(at: now), !cache.reading else { return (cache, false) }
            cache.reading = true
            return (cache, true)
        }
        if ask { readRequest.yield(now) }
        return cache
    }
}
