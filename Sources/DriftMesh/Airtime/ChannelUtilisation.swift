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

    /// The first instant at or after `now` at which ``busyFraction(over:now:)`` is below
    /// `share`, if nothing more is recorded meanwhile (time passing then only lowers it: the
    /// window drops old busy time and adds idle time). `now` itself when it already is. Busy
    /// time recorded beyond `now` (an own transmission still on the air) is not counted.
    func busyFractionFallsBelow(_ share: Double, over window: Duration, after now: Duration) -> Duration {
        let length = AirtimeBudget.nanoseconds(min(window, horizon))
        let to = AirtimeBudget.nanoseconds(now)
        let merged = Self.merged(transmissions + receptions, from: to - length, to: to)
        let busy = merged.reduce(Int64(0)) { $0 + $1.end - $1.start }
        guard length > 0, Double(busy) >= share * Double(length) else { return now }
        // As the window's start moves by d, the busy time it leaves behind is what lies in
        // [to − length, to − length + d]; it must exceed busy − share·length.
        let excess = Int64((Double(busy) - share * Double(length)).rounded(.down)) + 1
        var dropped: Int64 = 0
        for interval in merged {
            let span = interval.end - interval.start
            if dropped + span >= excess {
                let windowStart = interval.start + (excess - dropped)
                return .nanoseconds(windowStart + length)
            }
            dropped += span
        }
        return .nanoseconds(to + length)  // unreachable: excess ≤ busy
    }

    private func fraction(of intervals: [Interval], over window: Duration, now: Duration) -> Double {
        let length = AirtimeBudget.nanoseconds(min(window, horizon))
        guard length > 0 else { return 0 }
        let to = AirtimeBudget.nanoseconds(now)
        let busy = Self.merged(intervals, from: to - length, to: to).reduce(Int64(0)) { $0 + $1.end - $1.start }
        return min(1, Double(busy) / Double(length))
    }

    /// `intervals` clipped to `[from, to]`, sorted, overlaps merged.
    private static func merged(_ intervals: [Interval], from: Int64, to: Int64) -> [Interval] {
        let clipped = intervals
            .map { Interval(start: max($0.start, from), end: min($0.end, to)) }
            .filter { $0.end > $0.start }
            .sorted { $0.start < $1.start }
        var out: [Interval] = []
        for i in clipped {
            if let last = out.last, i.start <= last.end {
                out[out.count - 1].end = max(last.end, i.end)
            } else {
                out.append(i)
            }
        }
        return out
    }

    private static func append(_ interval: Interval, to list: inout [Interval], horizon: Int64, capacity: Int) {
        list.append(interval)
        let cutoff = interval.end - horizon
        if let first = list.first, first.end <= cutoff { list.removeAll { $0.end <= cutoff } }
        if list.count > capacity { list.removeFirst(list.count - capacity) }
    }
}
