/// What a stationary box does with its GPS receiver once its stable position is established.
/// Pure: times are durations on the caller's monotonic clock, actions come back to be carried
/// out (docs/gnss.md, "Power save").
///
/// In the beacon profile (``Mode/sleep``):
/// - **Tracking** (start, and after the box moved): awake until the stable position is
///   established and the receiver's family is known; then it is put to sleep.
/// - **Asleep** for `wakeInterval`; then woken.
/// - **Checking**: awake until `checkFixes` good fixes arrived with the stable position still
///   established (asleep again), or `checkLimit` passed (asleep again if the position still
///   stands: a receiver under a roof keeps the kit's battery; tracking if the box was found
///   to have moved, until the new position is established).
///
/// In the default profile (``Mode/slowFixes(interval:)``) the receiver stays awake:
/// - **Tracking**: one fix a second (the receiver's default) until the stable position is
///   established and the family is known; then it is told to fix once per `interval`.
/// - **Settled**: one fix per `interval`, still enough to see the box move; when a fix shows it
///   moved (the stable position restarts), back to one a second, tracking.
public struct GPSPowerSchedule: Sendable, Equatable {
    /// What happens once the position stands.
    public enum Mode: Sendable, Equatable {
        /// Asleep between position checks (the beacon profile).
        case sleep
        /// Awake, one fix per `interval` (the default profile).
        case slowFixes(interval: Duration)
    }

    public struct Settings: Sendable, Equatable {
        public var mode: Mode
        public var wakeInterval: Duration
        public var checkLimit: Duration
        public var checkFixes: Int

        public init(mode: Mode = .sleep, wakeInterval: Duration = .seconds(1_800), checkLimit: Duration = .seconds(120), checkFixes: Int = 10) {
            self.mode = mode
            self.wakeInterval = wakeInterval
            self.checkLimit = checkLimit
            self.checkFixes = checkFixes
        }
    }

    public enum Phase: Sendable, Equatable {
        case tracking
        case asleep(until: Duration)
        case checking(since: Duration, goodFixes: Int)
        /// One fix per the slow interval (``Mode/slowFixes(interval:)``).
        case settled
    }

    public enum Action: Sendable, Equatable {
        /// Send the family's sleep command.
        case sleep(GNSSReceiverFamily)
        /// Send the family's wake-up.
        case wake(GNSSReceiverFamily)
        /// Set the family's fix interval.
        case fixInterval(GNSSReceiverFamily, Duration)
    }

    /// The receiver's default fix interval, restored when the box moves.
    public static let trackingInterval = Duration.seconds(1)

    public let settings: Settings
    public private(set) var phase: Phase = .tracking
    /// The receiver's family, once configured or recognised; nothing is sent before.
    public private(set) var family: GNSSReceiverFamily?
    /// Sleeps begun (for status and tests).
    public private(set) var sleeps = 0

    public init(settings: Settings, family: GNSSReceiverFamily? = nil) {
        self.settings = settings
        self.family = family
    }

    /// Whether the receiver was told to sleep and has not been woken yet.
    public var isAsleep: Bool {
        if case .asleep = phase { return true }
        return false
    }

    /// How often the receiver was told to fix: its slow interval while settled, one second
    /// otherwise. The reader's silence limit stretches by it.
    public var fixInterval: Duration {
        if case .settled = phase, case .slowFixes(let interval) = settings.mode { return interval }
        return Self.trackingInterval
    }

    /// When ``tick(now:)`` has something to do; `nil`: only a fix can change anything.
    public var nextDeadline: Duration? {
        switch phase {
        case .tracking, .settled: nil
        case .asleep(let until): until
        case .checking(let since, _): since + settings.checkLimit
        }
    }

    /// The receiver's family became known (configured, or recognised from its sentences).
    public mutating func recognised(_ family: GNSSReceiverFamily) {
        if self.family == nil { self.family = family }
    }

    /// A fix arrived: `good` when it passed the stable position's quality gates; `established`
    /// when the stable position stands after it.
    public mutating func fix(good: Bool, established: Bool, now: Duration) -> [Action] {
        guard let family else { return [] }
        switch phase {
        case .tracking:
            guard established else { return [] }
            if case .slowFixes(let interval) = settings.mode {
                phase = .settled
                return [.fixInterval(family, interval)]
            }
            return goToSleep(family, now: now)
        case .settled:
            guard !established else { return [] }
            phase = .tracking   // the box moved: a fix a second until the new place is established
            return [.fixInterval(family, Self.trackingInterval)]
        case .asleep:
            // A receiver that ignored the command (or woke by itself): the next tick wakes
            // nothing, the next check starts on time; its fixes are used meanwhile.
            return []
        case .checking(let since, let count):
            guard established else {
                phase = .tracking   // the box moved: stay awake until the new place is established
                return []
            }
            let total = count + (good ? 1 : 0)
            if total >= settings.checkFixes { return goToSleep(family, now: now) }
            phase = .checking(since: since, goodFixes: total)
            return []
        }
    }

    /// Time passed: wakes the receiver when its sleep is over, ends a check that took too long.
    public mutating func tick(now: Duration, established: Bool) -> [Action] {
        guard let family else { return [] }
        switch phase {
        case .tracking, .settled:
            return []
        case .asleep(let until):
            guard now >= until else { return [] }
            phase = .checking(since: now, goodFixes: 0)
            return [.wake(family)]
        case .checking(let since, _):
            guard now >= since + settings.checkLimit else { return [] }
            if established { return goToSleep(family, now: now) }
            phase = .tracking
            return []
        }
    }

    /// The receiver was replugged or reopened: it runs at full power again. A reopened port
    /// may lead to the same receiver, still slowed: it is told one fix a second again.
    public mutating func reopened() -> [Action] {
        let wasSettled = phase == .settled
        phase = .tracking
        guard wasSettled, let family else { return [] }
        return [.fixInterval(family, Self.trackingInterval)]
    }

    private mutating func goToSleep(_ family: GNSSReceiverFamily, now: Duration) -> [Action] {
        phase = .asleep(until: now + settings.wakeInterval)
        sleeps += 1
        return [.sleep(family)]
    }
}
