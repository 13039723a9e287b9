import Synchronization

/// The safety net under ``ReadinessMonitor`` and ``WritabilityMonitor``: waits that have lasted
/// a while without their registration firing can be checked against the descriptor itself
/// (a non-blocking `poll(2)`), all at once, by ``ReadinessMonitor/recheckWaits(olderThan:)``.
///
/// A registration is lost when the descriptor under an armed wait is closed or replaced (`dup2`)
/// and its number reused: the kernel drops the registration with the old file, and the wait
/// would never wake, deaf even to a hang-up. The monitors' owners close them first, so this is
/// not expected; while the monitors ran on libdispatch's sources it happened in libdispatch's
/// own races too ([architecture](../../docs/architecture.md#io-without-polling-threads)). A wait
/// with no deadline (a serial port waiting for its device) must not hang for good either way.
/// The daemon sweeps once per liveness period, on a wake it has anyway (its housekeeping), so
/// the net costs an idle box no wake-up of its own; a rescued wait ends at most two periods
/// late and is counted (``rescuedWaits``, `driftd_readiness_rescued_waits`).
protocol SweptWait: AnyObject, Sendable {
    /// Ends the armed wait as ready if it is `age` old or older and the descriptor is ready;
    /// returns whether it did (and counts it).
    func recheckWait(olderThan age: Duration) -> Bool
}

enum WaitSweeps {
    private struct Entry: Sendable {
        weak var wait: (any SweptWait)?
    }

    private static let entries = Mutex<[ObjectIdentifier: Entry]>([:])
    private static let rescued = Mutex(0)

    static var rescuedWaits: Int { rescued.withLock { $0 } }

    static func countRescue() {
        rescued.withLock { $0 += 1 }
    }

    static func register(_ wait: any SweptWait) {
        entries.withLock { $0[ObjectIdentifier(wait)] = Entry(wait: wait) }
    }

    static func unregister(_ id: ObjectIdentifier) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    /// Checks every registered monitor's armed wait; returns how many it ended.
    @discardableResult
    static func sweep(olderThan age: Duration) -> Int {
        let waits = entries.withLock { $0.values.compactMap(\.wait) }
        var ended = 0
        for wait in waits where wait.recheckWait(olderThan: age) { ended += 1 }
        return ended
    }
}
