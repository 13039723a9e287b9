/// The packets a box asked its neighbours for (``SyncRequest``) and when to ask again.
///
/// Catch-up runs on single frames without acknowledgement: a request, or the copy that answers
/// it, can be lost (two neighbours that cannot hear each other answering at once collide at
/// the box that asked, review finding 8). So a key asked for and not heard by its deadline is
/// asked for again, with the wait doubling each time, at most ``maximumAttempts`` times in all;
/// a key heard (from anyone) is done. Pure: time comes in as `now`.
public struct SyncRequestTracker: Sendable {
    struct Entry: Sendable {
        var attempts: Int
        var nextAt: Duration
    }

    /// Requests per key, the first included.
    public let maximumAttempts: Int
    private var entries: [PacketKey: Entry] = [:]

    public init(maximumAttempts: Int = 4) {
        precondition(maximumAttempts >= 1, "a key is asked for at least once")
        self.maximumAttempts = maximumAttempts
    }

    /// Keys asked for and not heard yet.
    public var pending: Set<PacketKey> { Set(entries.keys) }

    /// `keys` were asked for at `now`; the next request waits `timeout` for the first attempt,
    /// doubling with every further one. A key already waiting keeps its attempt count.
    public mutating func asked(_ keys: [PacketKey], now: Duration, timeout: Duration) {
        for key in keys {
            let attempts = (entries[key]?.attempts ?? 0) + 1
            guard attempts <= maximumAttempts else {
                entries[key] = nil
                continue
            }
            entries[key] = Entry(attempts: attempts, nextAt: now + timeout * (1 << (attempts - 1)))
        }
    }

    /// A copy of `key` was heard: nothing more to ask for.
    public mutating func heard(_ key: PacketKey) {
        entries[key] = nil
    }

    /// The keys whose answer did not come by `now` and that may be asked for again, in key
    /// order; keys out of attempts are dropped. The caller asks (``asked(_:now:timeout:)``).
    public mutating func due(now: Duration) -> [PacketKey] {
        var out: [PacketKey] = []
        for (key, entry) in entries where entry.nextAt <= now {
            if entry.attempts >= maximumAttempts {
                entries[key] = nil
            } else {
                out.append(key)
            }
        }
        return out.sorted()
    }

    /// When ``due(now:)`` next has something to do.
    public var nextDeadline: Duration? {
        entries.values.map(\.nextAt).min()
    }
}
