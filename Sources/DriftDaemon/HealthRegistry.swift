import Synchronization

/// Liveness of the daemon's main loops, for the systemd watchdog.
///
/// Each long-running loop registers with the longest silence it may show, then
/// calls ``beat(_:at:)`` every time round.
///
/// The watchdog asks ``check(interval:)``, which judges **progress, not the wall clock**: a loop
/// is stalled when it has not beaten across as many consecutive checks as its silence allows
/// (`maximumSilence / interval`). When the CPU is busy — both cores taken, a slow board — the
/// checks slow down with everything else, so a loop that is merely late is never called stalled
/// (a wall-clock verdict read a late loop as a dead one and stopped the pings of a healthy box);
/// a loop that is stuck while the checker keeps running still misses check after check, and the
/// pings stop so systemd restarts the daemon.
///
/// ``evaluate(at:)`` is the wall-clock view over the same beats, for status reports.
public final class HealthRegistry: Sendable {
    public typealias Instant = ContinuousClock.Instant

    struct Entry: Sendable {
        /// `nil` for a component that has no loop (only faults).
        var maximumSilence: Duration?
        var lastBeat: Instant
        var fault: String?
        /// Beats so far, and as seen by the last ``HealthRegistry/check(interval:)``.
        var beats: UInt64 = 0
        var beatsAtLastCheck: UInt64 = 0
        /// Consecutive checks that found no new beat.
        var missedChecks = 0
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let faultObservers = Mutex<[@Sendable () -> Void]>([])
    /// The loops the last ``check(interval:)`` called stalled.
    private let stalledAtLastCheck = Mutex<[String]>([])

    public init() {}

    /// Registers `component`, counting it as alive at `now`. With `maximumSilence` `nil` the
    /// component has no loop to watch and only reports faults.
    public func register(_ component: String, maximumSilence: Duration?, at now: Instant = .now) {
        entries.withLock { $0[component] = Entry(maximumSilence: maximumSilence, lastBeat: now) }
    }

    /// Removes `component` (a loop that ended on purpose).
    public func unregister(_ component: String) {
        _ = entries.withLock { $0.removeValue(forKey: component) }
    }

    /// Records that `component`'s loop is alive.
    public func beat(_ component: String, at now: Instant = .now) {
        entries.withLock { entries in
            entries[component]?.lastBeat = now
            entries[component]?.beats &+= 1
        }
    }

    /// The watchdog's verdict, by progress: call it once per watchdog tick, `interval` apart.
    /// A loop that beat since the previous check is alive; one that did not has missed a check,
    /// and is stalled once its missed checks span more than its `maximumSilence`.
    /// A change of that verdict is told to the ``observeFaults(_:)`` observers (the status LED's
    /// fast blink follows it without polling).
    public func check(interval: Duration) -> HealthReport {
        let report = checkEntries(interval: interval)
        let changed = stalledAtLastCheck.withLock { last in
            defer { last = report.stalled }
            return last != report.stalled
        }
        if changed {
            for observer in faultObservers.withLock({ $0 }) { observer() }
        }
        return report
    }

    private func checkEntries(interval: Duration) -> HealthReport {
        entries.withLock { entries in
            var stalled: [String] = []
            var faults: [String: String] = [:]
            for name in Array(entries.keys) {
                guard var entry = entries[name] else { continue }
                if let limit = entry.maximumSilence {
                    if entry.beats != entry.beatsAtLastCheck {
                        entry.beatsAtLastCheck = entry.beats
                        entry.missedChecks = 0
                    } else {
                        entry.missedChecks += 1
                    }
                    if interval * entry.missedChecks > limit { stalled.append(name) }
                }
                if let fault = entry.fault { faults[name] = fault }
                entries[name] = entry
            }
            return HealthReport(components: entries.keys.sorted(), stalled: stalled.sorted(), faults: faults)
        }
    }

    /// Marks `component` as faulty (alive but failing) or clears the fault with `nil`.
    /// Faults show in the status line; they do not stop the watchdog.
    /// A component that never registered (one that could not even start, like a radio whose
    /// port is taken) is registered as fault-only, so the fault is never lost.
    public func setFault(_ component: String, _ fault: String?) {
        let changed = entries.withLock { entries in
            guard entries[component] != nil else {
                guard let fault else { return false }
                entries[component] = Entry(maximumSilence: nil, lastBeat: .now, fault: fault)
                return true
            }
            guard entries[component]?.fault != fault else { return false }
            entries[component]?.fault = fault
            return true
        }
        if changed {
            for observer in faultObservers.withLock({ $0 }) { observer() }
        }
    }

    /// Calls `observer` (on the caller's thread, outside any lock) whenever a component's
    /// fault appears, changes or clears, or the watchdog's verdict of stalled loops changes —
    /// e.g. to re-render the status LED at once.
    public func observeFaults(_ observer: @escaping @Sendable () -> Void) {
        faultObservers.withLock { $0.append(observer) }
    }

    /// The verdict at `now`.
    public func evaluate(at now: Instant = .now) -> HealthReport {
        entries.withLock { entries in
            var stalled: [String] = []
            var faults: [String: String] = [:]
            for (name, entry) in entries {
                if let limit = entry.maximumSilence, now - entry.lastBeat > limit {
                    stalled.append(name)
                }
                if let fault = entry.fault { faults[name] = fault }
            }
            return HealthReport(components: entries.keys.sorted(), stalled: stalled.sorted(), faults: faults)
        }
    }
}

/// What ``HealthRegistry/evaluate(at:)`` found.
public struct HealthReport: Sendable, Equatable {
    /// Every registered component.
    public var components: [String]
    /// Components whose loops have been silent too long.
    public var stalled: [String]
    /// Faults reported by components, by component.
    public var faults: [String: String]

    /// Whether every loop is alive (the watchdog may be pinged).
    public var isAlive: Bool { stalled.isEmpty }
}
