/// The Trickle algorithm (RFC 6206) for when to send a sync digest: often while
/// neighbours disagree, exponentially rarer while they agree.
///
/// Intervals grow from `minimumInterval` by doubling up to `maximumInterval`. In each
/// interval one transmission time `t` is drawn in [I/2, I); at `t` the digest is sent
/// unless `redundancy` consistent digests were already heard in this interval.
/// Hearing something inconsistent (a digest that shows missing packets, a new
/// neighbour) resets the interval to the minimum.
///
/// Whose consistent digests suppress ours can be judged too (``due(now:suppressedBy:)``): in a
/// mesh a box's neighbours are not all in range of one another, and digests that agreed with ours
/// say nothing to a neighbour that heard none of them.
public struct TrickleTimer: Sendable {
    public let minimumInterval: Duration
    public let maximumInterval: Duration
    /// k: consistent transmissions heard that suppress ours.
    public let redundancy: Int
    public private(set) var interval: Duration
    public private(set) var intervalStart: Duration
    public private(set) var fireAt: Duration
    public private(set) var heardConsistent = 0
    /// The senders of the consistent transmissions heard in this interval, as far as
    /// ``consistent(from:)`` named them.
    public private(set) var consistentFrom: Set<NodeID> = []
    /// The next transmission goes out however many consistent ones are heard first.
    public private(set) var mustSend = false
    private var fired = false
    private var rng: MeshRandom

    public init(minimumInterval: Duration, doublings: Int, redundancy: Int, now: Duration, seed: UInt64) {
        precondition(minimumInterval > .zero && doublings >= 0 && redundancy >= 1, "a Trickle timer needs Imin > 0, doublings ≥ 0, k ≥ 1")
        self.minimumInterval = minimumInterval
        self.maximumInterval = minimumInterval * (1 << min(doublings, 30))
        self.redundancy = redundancy
        self.rng = MeshRandom(seed: seed)
        self.interval = minimumInterval
        self.intervalStart = now
        self.fireAt = now
        start(now: now)
    }

    private mutating func start(now: Duration) {
        intervalStart = now
        heardConsistent = 0
        consistentFrom = []
        fired = false
        let half = interval / 2
        let micros = max(1, Int((half / .microseconds(1)).rounded(.down)))
        fireAt = now + half + .microseconds(rng.int(in: 0...(micros - 1)))
    }

    /// A neighbour's digest matched ours (`sender`: whose, when known).
    public mutating func consistent(from sender: NodeID? = nil) {
        heardConsistent += 1
        if let sender { consistentFrom.insert(sender) }
    }

    /// Something showed the neighbourhood out of sync: back to the shortest interval. With
    /// `mustSend` our next transmission is not suppressed: a box that learnt it lacks something
    /// may be the only one whose digest can ask for it (its neighbours may lack the same and
    /// sound consistent to each other).
    public mutating func inconsistent(now: Duration, mustSend: Bool = false) {
        if mustSend { self.mustSend = true }
        guard interval > minimumInterval else { return }  // RFC 6206 §4.2 rule 6
        interval = minimumInterval
        start(now: now)
    }

    /// When `due(now:)` next has something to do.
    public var nextDeadline: Duration {
        fired ? intervalStart + interval : fireAt
    }

    /// True when our digest should be sent now; advances intervals as time passes. With
    /// `suppressedBy`, `redundancy` consistent digests suppress ours only when it says yes to
    /// their senders (``consistentFrom``): for instance, when every neighbour heard one of them.
    /// `longest`: the intervals that start now double up to it instead of ``maximumInterval``
    /// (never below ``minimumInterval``); one longer than it is cut to it when the next starts.
    public mutating func due(now: Duration, longest: Duration? = nil, suppressedBy: (Set<NodeID>) -> Bool = { _ in true }) -> Bool {
        let ceiling = max(minimumInterval, longest ?? maximumInterval)
        var send = false
        if !fired, now >= fireAt {
            fired = true
            send = sends(suppressedBy)
        }
        while now >= intervalStart + interval {
            let end = intervalStart + interval
            interval = min(interval * 2, ceiling)
            start(now: end)
            if !fired, now >= fireAt {
                fired = true
                send = send || sends(suppressedBy)
            }
        }
        if send { mustSend = false }
        return send
    }

    /// Whether this interval's transmission goes out, now that its time has come.
    private func sends(_ suppressedBy: (Set<NodeID>) -> Bool) -> Bool {
        heardConsistent < redundancy || mustSend || !suppressedBy(consistentFrom)
    }
}
