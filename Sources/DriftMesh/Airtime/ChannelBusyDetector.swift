/// Whether the channel counts as busy for the router's copy counter
/// (``MeshRouterConfiguration/cancelAfterCopiesOnlyWhenBusy``): this box heard frames for at
/// least ``threshold`` of the last ``window`` (10 % of 30 s by default), by their airtime.
///
/// Only frames heard count, not the box's own transmissions: the question is whether its
/// neighbourhood is loaded, so that overheard copies are a cheap enough sign of coverage.
/// Overlapping frames count once. The driver records each frame as it ends and asks again at
/// ``quietAt`` (time passing alone can only make a busy channel quiet); both answer the new
/// state when it flipped, which the driver hands to the node as `.channelBusy`. The daemon's
/// `MeshNode` and the simulator use this one type.
///
/// Pure: every call takes the caller's monotonic `now`, which must not go backwards.
public struct ChannelBusyDetector: Sendable {
    /// Busy from this share of the window on.
    public let threshold: Double
    public let window: Duration
    /// The state last answered.
    public private(set) var busy = false
    /// The share of the window heard, as of the last ``heard(airtime:endingAt:)`` or
    /// ``update(now:)`` (what the state was judged on).
    public private(set) var lastShare = 0.0
    private var heard: ChannelUtilisation

    public init(threshold: Double = 0.10, window: Duration = .seconds(30)) {
        precondition(threshold > 0 && threshold <= 1 && window > .zero, "a busy threshold in (0, 1] over a positive window")
        self.threshold = threshold
        self.window = window
        heard = ChannelUtilisation(horizon: window)
    }

    /// The share (0…1) of the last ``window`` during which frames were heard, at `now`.
    public func heardShare(now: Duration) -> Double {
        heard.busyFraction(over: window, now: now)
    }

    /// Records a frame heard that ended at `end` (the caller's now) after `airtime` on the air;
    /// the new state when it flipped, else `nil`.
    public mutating func heard(airtime: Duration, endingAt end: Duration) -> Bool? {
        heard.recordReception(airtime: airtime, endingAt: end)
        return update(now: end)
    }

    /// The state at `now`; the new state when it flipped, else `nil`.
    public mutating func update(now: Duration) -> Bool? {
        lastShare = heardShare(now: now)
        let state = lastShare >= threshold
        guard state != busy else { return nil }
        busy = state
        return state
    }

    /// When a busy channel turns quiet if nothing more is heard (`nil` while quiet): the
    /// driver calls ``update(now:)`` then. Always after `now` while busy.
    public func quietAt(after now: Duration) -> Duration? {
        guard busy else { return nil }
        return max(heard.busyFractionFallsBelow(threshold, over: window, after: now), now + .nanoseconds(1))
    }
}
