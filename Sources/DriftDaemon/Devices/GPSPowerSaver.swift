import DriftSystem
import GNSS
import Hardware
import Logging
import Synchronization

/// Puts a stationary box's GPS receiver to sleep once its stable position is established and
/// wakes it every `power.gps_wake_interval_s` to re-check (the beacon profile, docs/power.md),
/// or, in the default profile, slows its fixes to one per `gps.settled_fix_interval_s`
/// (docs/gnss.md, "Power save").
///
/// ``GNSS/GPSPowerSchedule`` decides; this carries its actions out on the receiver's serial
/// port. Time is the injected clock's: the schedule's deadlines are slept on it (cut short by a
/// ``Doorbell`` when a fix changes the plan), so tests move a ``ManualClock`` instead of waiting.
/// One task (``run()``, beside the GPS read loop) writes the commands, so the port has one writer.
public final class GPSPowerSaver: Sendable {
    /// What the receiver is doing, for `driftd status`.
    public struct Snapshot: Codable, Sendable, Equatable {
        /// `tracking`, `asleep`, `checking` or `settled` (one fix per `fixIntervalSeconds`).
        public var phase: String
        /// `ublox`, `mediatek`, or `nil` while not known (nothing is sent then).
        public var receiver: String?
        /// Seconds until the receiver is woken (asleep) or the check ends (checking).
        public var nextInSeconds: Double?
        /// Sleep commands sent since start.
        public var sleeps: Int
        /// The fix interval the receiver was told, in seconds (1 unless settled).
        public var fixIntervalSeconds: Double = 1
    }

    /// Where the commands go: the receiver's serial port, or the simulated receiver.
    public typealias Sink = @Sendable ([UInt8]) async throws -> Void

    private struct State {
        var schedule: GPSPowerSchedule
        var pending: [GPSPowerSchedule.Action] = []
        var sink: Sink?
        var sent: [GNSSReceiverFamily: Int] = [:]
        var attachWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    private let time: ElapsedTime
    private let doorbell = Doorbell()
    private let detects: Bool
    private let logger: Logger

    /// - Parameters:
    ///   - family: the configured receiver family; `nil` recognises it from its sentences when
    ///     `detect` is set, and sends nothing otherwise.
    ///   - clock: the schedule's time (a `ManualClock` in tests).
    public init(settings: GPSPowerSchedule.Settings, family: GNSSReceiverFamily?, detect: Bool,
                clock: any Clock<Duration> = ContinuousClock(), logger: Logger) {
        state = Mutex(State(schedule: GPSPowerSchedule(settings: settings, family: family)))
        time = ElapsedTime(clock)
        detects = detect && family == nil
        self.logger = logger
    }

    /// Whether the receiver was put to sleep and not yet woken: its silence is no fault.
    public var isAsleep: Bool { state.withLock { $0.schedule.isAsleep } }

    /// How often the receiver was told to fix (one second unless settled): a reader waits this
    /// much longer before it calls the receiver silent.
    public var fixInterval: Duration { state.withLock { $0.schedule.fixInterval } }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    public var snapshot: Snapshot {
        let now = time.now
        return state.withLock { state in
            let phase = switch state.schedule.phase {
            case .tracking: "tracking"
            case .asleep: "asleep"
            case .checking: "checking"
            case .settled: "settled"
            }
            let next = state.schedule.nextDeadline.map { max(0, Double(($0 - now).components.seconds)) }
            return Snapshot(phase: phase, receiver: state.schedule.family?.rawValue, nextInSeconds: next, sleeps: state.schedule.sleeps,
                            fixIntervalSeconds: Self.seconds(state.schedule.fixInterval))
        }
    }

    /// How many sleep commands went out to a receiver of `family` (tests).
    func sleepCommandsSent(_ family: GNSSReceiverFamily) -> Int { state.withLock { $0.sent[family] ?? 0 } }

    /// The port the commands go to (`nil` while the receiver is unplugged). A new port means a
    /// receiver that starts at full power.
    func attach(_ port: (any SerialPort)?) {
        guard let port else { return attach(sink: nil) }
        attach(sink: { @Sendable bytes in try await port.write(bytes, timeout: .seconds(2)) })
    }

    /// Where the commands go from now on (`nil`: nowhere, the receiver is gone).
    public func attach(sink: Sink?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.sink = sink
            guard sink != nil else { return [] }
            state.pending += state.schedule.reopened()
            defer { state.attachWaiters = [] }
            return state.attachWaiters
        }
        waiters.forEach { $0.resume() }
        doorbell.ring()
    }

    /// Returns once commands have somewhere to go (the receiver's port is open): tests write
    /// to the receiver only then.
    func waitForAttachment() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sink != nil { return true }
                state.attachWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// A sentence from the receiver: recognises its family when asked to.
    func heard(_ sentence: NMEASentence) {
        guard detects, let family = GNSSReceiverFamily.identify(sentence) else { return }
        let first = state.withLock { state -> Bool in
            guard state.schedule.family == nil else { return false }
            state.schedule.recognised(family)
            return true
        }
        if first { logger.notice("GPS receiver recognised", metadata: ["family": "\(family.rawValue)"]) }
    }

    /// A fix: `good` when it passed the stable position's gates, `established` when the stable
    /// position stands after it.
    func fix(good: Bool, established: Bool) {
        let now = time.now
        let queued = state.withLock { state -> Bool in
            let actions = state.schedule.fix(good: good, established: established, now: now)
            state.pending += actions
            return !actions.isEmpty
        }
        if queued { doorbell.ring() }
    }

    /// The estimate's state for ``run()``'s ticks.
    private let established = Mutex(false)

    func setEstablished(_ value: Bool) { established.withLock { $0 = value } }

    /// Sleeps until the schedule's next deadline (or a ring), then sends what is due; returns
    /// when cancelled.
    public func run() async {
        while !Task.isCancelled {
            let deadline = state.withLock { $0.pending.isEmpty ? $0.schedule.nextDeadline : time.now }
            if let deadline {
                await doorbell.wait(orUntil: { [time] in try await time.sleep(until: deadline) })
            } else {
                await doorbell.wait(orUntil: { try await Task.sleep(for: .seconds(86_400 * 365)) })
            }
            if Task.isCancelled { return }
            let now = time.now
            let isEstablished = established.withLock { $0 }
            let (actions, sink) = state.withLock { state in
                let due = state.pending + state.schedule.tick(now: now, established: isEstablished)
                state.pending = []
                return (due, state.sink)
            }
            for action in actions {
                await send(action, to: sink)
            }
        }
    }

    private func send(_ action: GPSPowerSchedule.Action, to sink: Sink?) async {
        let interval = state.withLock { $0.schedule.settings.wakeInterval }
        let (bytes, what, family): ([UInt8], String, GNSSReceiverFamily) = switch action {
        case .sleep(let f): (GPSPowerCommand.sleep(f, interval: interval), "sleep", f)
        case .wake(let f): (GPSPowerCommand.wake(f), "wake", f)
        case .fixInterval(let f, let every): (GPSPowerCommand.fixInterval(f, interval: every), "fix interval \(every)", f)
        }
        guard let sink else {
            logger.debug("GPS power command not sent: no receiver port", metadata: ["command": "\(what)"])
            return
        }
        do {
            try await sink(bytes)
            if case .sleep = action { state.withLock { $0.sent[family, default: 0] += 1 } }
            let message: Logger.Message = switch action {
            case .sleep: "GPS receiver put to sleep"
            case .wake: "GPS receiver woken to re-check the position"
            case .fixInterval(_, let every): every > GPSPowerSchedule.trackingInterval
                ? "GPS receiver settled: one fix every \(every)" : "GPS receiver back to a fix a second"
            }
            logger.info(message, metadata: ["family": "\(family.rawValue)", "bytes": "\(bytes.count)"])
        } catch {
            logger.warning("GPS power command failed", metadata: ["command": "\(what)", "error": "\(error)"])
        }
    }
}
