/// How busy the channel has been: the fraction of recent time during which this box was
/// transmitting or hearing a packet, by their airtime.
///
/// Like Meshtastic's `channel_utilization` (busy time, receptions and own transmissions,
/// over the last minute) and `air_util_tx` (own transmissions only, over the last hour).
/// Overlapping intervals (a reception heard while another is reported) are merged, so the
/// fraction never exceeds 1. Before a whole window has elapsed the busy time is still divided
/// by the full window (a fresh box reads as quiet, not as busy).
///
/// Pure: every call takes the caller's monotonic `now`, which must not go backwards.
public struct ChannelUtilisation: Sendable {
    /// How long intervals are remembered; the longest window one can ask about.
    public let horizon: Duration
    /// At most this many intervals of each kind are kept (oldest dropped first).
    public let capacity: Int

    private var transmissions: [Interval] = []
    private var receptions: [Interval] = []

    private struct Interval: Sendable {
        var start: Int64
        var end: Int64
    }

    /// - Parameters:
    ///   - horizon: the longest window queried later (default one hour, for `air_util_tx`).
    ///   - capacity: bound on remembered intervals per kind.
    public init(horizon: Duration = .seconds(3600), capacity: Int = 20_000) {
        precondition(horizon > .zero && capacity > 0, "horizon and capacity must be positive")
        self.horizon = horizon
        self.capacity = capacity
    }

    /// Records one of this box's transmissions starting at `start`.
    public mutating func recordTransmission(airtime: Duration, at start: Duration) {
        let s = AirtimeBudget.nanoseconds(start)
        Self.append(Interval(start: s, end: s + AirtimeBudget.nanosecondsUp(airtime)), to: &transmissions,
                    horizon: AirtimeBudget.nanoseconds(horizon), capacity: capacity)
    }

    /// Records a packet heard (or a busy channel sensed) that ended at `end` after `airtime` on air.
    public mutating func recordReception(airtime: Duration, endingAt end: Duration) {
        let e = AirtimeBudget.nanoseconds(end)
        Self.append(Interval(start: e - AirtimeBudget.nanosecondsUp(airtime), end: e), to: &receptions,
                    horizon: AirtimeBudget.nanoseconds(horizon), capacity: capacity)
    }

    /// Fraction (0…1) of `[now − window, now]` during which the channel was busy (own
    /// transmissions and receptions). `window` is capped at ``horizon``.
    public func busyFraction(over window: Duration, now: Duration) -> Double {
        fraction(of: transmissions + receptions, over: window, now: now)
    }

    /// Fraction (0…1) of `[now − window, now]` this box spent transmitting.
    public func transmitFraction(over window: Duration, now: Duration) -> Double {
        fraction(of: transmissions, over: window, now: now)
    }

    /// Meshtastic-style figures: busy over the last minute, own transmissions over the last hour
    /// (capped at ``horizon``), as percentages.
    public func summary(now: Duration) -> (channelUtilisationPercent: Double, airUtilTxPercent: Double) {
        (busyFraction(over: .seconds(60), now: now) * 100,
         transmitFraction(over: min(.seconds(3600), horizon), now: now) * 100)
    }

    private func fraction(of intervals: [Interval], over window: Duration, now: Duration) -> Double {
        let length = AirtimeBudget.nanoseconds(min(window, horizon))
        guard length > 0 else { return 0 }
        let to = AirtimeBudget.nanoseconds(now)
        let from = to - length
        let clipped = intervals
            .map { Interval(start: max($0.start, from), end: min($0.end, to)) }
            .filter { $0.end > $0.start }
            .sorted { $0.start < $1.start }
        var busy: Int64 = 0
        var cursor = from
        for i in clipped where i.end > cursor {
            busy += i.end - max(i.start, cursor)
            cursor = i.end
        }
        return min(1, Double(busy) / Double(length))
    }

    private static func append(_ interval: Interval, to list: inout [Interval], horizon: Int64, capacity: Int) {
        list.append(interval)
        let cutoff = interval.end - horizon
        if let first = list.first, first.end <= cutoff { list.removeAll { $0.end <= cutoff } }
        if list.count > capacity { list.removeFirst(list.count - capacity) }
    }
}
