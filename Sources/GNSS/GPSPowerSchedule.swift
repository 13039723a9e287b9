/// When a stationary box's GPS receiver sleeps and when it wakes to re-check the position
/// (the beacon profile, docs/power.md). Pure: times are durations on the caller's monotonic
/// clock, actions come back to be carried out.
///
/// - **Tracking** (start, and after the box moved): awake until the stable position is
///   established and the receiver's family is known; then it is put to sleep.
/// - **Asleep** for `wakeInterval`; then woken.
/// - **Checking**: awake until `checkFixes` good fixes arrived with the stable position still
///   established (asleep again), or `checkLimit` passed (asleep again if the position still
///   stands: a receiver under a roof keeps the kit's battery; tracking if the box was found
///   to have moved, until the new position is established).
public struct GPSPowerSchedule: Sendable, Equatable {
    public struct Settings: Sendable, Equatable {
        public var wakeInterval: Duration
        public var checkLimit: Duration
        public var checkFixes: Int

        public init(wakeInterval: Duration = .seconds(1_800), checkLimit: Duration = .seconds(120), checkFixes: Int = 10) {
            self.wakeInterval = wakeInterval
            self.checkLimit = checkLimit
            self.checkFixes = checkFixes
        }
    }

    public enum Phase: Sendable, Equatable {
        case tracking
        case asleep(until: Duration)
        case checking(since: Duration, goodFixes: Int)
    }

    public enum Action: Sendable, Equatable {
        /// Send the family's sleep command.
        case sleep(GNSSReceiverFamily)
        /// Send the family's wake-up.
        case wake(GNSSReceiverFamily)
    }

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

    /// When ``tick(now:)`` has something to do; `nil`: only a fix can change anything.
    public var nextDeadline: Duration? {
        switch phase {
        case .tracking: nil
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
            return goToSleep(family, now: now)
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
        case .tracking:
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

    /// The receiver was replugged or reopened: it runs at full power again.
    public mutating func reopened() {
        phase = .tracking
    }

    private mutating func goToSleep(_ family: GNSSReceiverFamily, now: Duration) -> [Action] {
        phase = .asleep(until: now + settings.wakeInterval)
        sleeps += 1
        return [.sleep(family)]
    }
}
