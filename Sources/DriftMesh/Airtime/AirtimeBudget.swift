/// This box's own transmit-time budget over a sliding window (one hour for ETSI duty cycles).
///
/// A pure state machine: the caller passes `now` (monotonic, ``Duration`` since an arbitrary
/// start, never going backwards) and records every transmission it makes. The invariant it
/// keeps: for EVERY window `[x, x + window]`, the airtime of recorded transmissions inside it
/// is at most ``limit`` — provided the caller only transmits when ``canTransmit(airtime:now:emergency:)``
/// says yes and records it with ``record(airtime:at:)``.
///
/// The check is "committed + airtime ≤ allowance", where committed is all recorded airtime
/// from `now − window` onwards: any window containing part of the new transmission starts
/// after `now − window`, so it can hold no more than that.
///
/// A reserve (``reserveFraction`` of the limit, 10 % by default) is kept for emergency traffic:
/// normal traffic may fill the window only up to `limit × (1 − reserveFraction)`.
public struct AirtimeBudget: Sendable {
    /// The sliding window.
    public let window: Duration
    /// Airtime allowed per window; `nil` = no duty-cycle limit.
    public let limit: Duration?
    /// Share of ``limit`` only emergency traffic may use (0…1).
    public let reserveFraction: Double
    /// Longest single transmission; `nil` = none.
    public let maxDwell: Duration?

    /// Recorded transmissions in nanoseconds, in recording order.
    private var records: [Interval] = []

    struct Interval: Sendable {
        var start: Int64
        var end: Int64
        var length: Int64 { end - start }
    }

    /// A budget with explicit figures.
    public init(window: Duration = .seconds(3600), limit: Duration?, reserveFraction: Double = 0.1, maxDwell: Duration? = nil) {
        precondition(window > .zero, "window must be positive")
        precondition((0...1).contains(reserveFraction), "reserveFraction must be within 0…1")
        self.window = window
        self.limit = limit
        self.reserveFraction = reserveFraction
        self.maxDwell = maxDwell
    }

    /// The budget a ``DutyCyclePolicy`` allows.
    public init(policy: DutyCyclePolicy, reserveFraction: Double = 0.1) {
        self.init(window: policy.window, limit: policy.airtimeLimit, reserveFraction: reserveFraction, maxDwell: policy.maxDwell)
    }

    /// The most airtime a window may hold for this class of traffic.
    public func allowance(emergency: Bool) -> Duration? {
        guard let limit else { return nil }
        if emergency { return limit }
        let ns = Self.nanoseconds(limit)
        return Self.duration(min(ns, Int64((Double(ns) * (1 - reserveFraction)).rounded())))
    }

    /// Why `airtime` can never be sent by this class of traffic, or `nil` if some wait makes it possible.
    public func refusal(airtime: Duration, emergency: Bool = false) -> AirtimeRefusal? {
        if let maxDwell, airtime > maxDwell { return .exceedsDwell(airtime: airtime, limit: maxDwell) }
        if let allowance = allowance(emergency: emergency), airtime > allowance {
            return .exceedsBudget(airtime: airtime, limit: allowance)
        }
        return nil
    }

    /// Whether a transmission of `airtime` may start at `now`.
    public func canTransmit(airtime: Duration, now: Duration, emergency: Bool = false) -> Bool {
        earliestStart(airtime: airtime, now: now, emergency: emergency) == now
    }

    /// The first instant ≥ `now` at which a transmission of `airtime` may start, or `nil` if it
    /// never can (see ``refusal(airtime:emergency:)``). Assumes nothing else is recorded meanwhile.
    public func earliestStart(airtime: Duration, now: Duration, emergency: Bool = false) -> Duration? {
        if refusal(airtime: airtime, emergency: emergency) != nil { return nil }
        guard let allowance = allowance(emergency: emergency) else { return now }
        let target = Self.nanoseconds(allowance) - Self.nanosecondsUp(airtime)
        let windowNs = Self.nanoseconds(window)
        let nowNs = Self.nanoseconds(now)
        // committed(y) = Σ overlap(record, [y, ∞)); continuous, non-increasing in y; y = t − window.
        var y = nowNs - windowNs
        var current = committed(from: y)
        if current <= target { return now }
        // Sweep the record starts and ends after y: committed falls with slope = the number of
        // records spanning y (started, not yet ended), which changes only at those points.
        var active = Int64(records.filter { $0.start <= y && $0.end > y }.count)
        var events: [(point: Int64, delta: Int64)] = []
        for r in records {
            if r.start > y { events.append((r.start, 1)) }
            if r.end > y { events.append((r.end, -1)) }
        }
        events.sort { $0.point < $1.point }
        for event in events {
            let next = current - active * (event.point - y)
            if next <= target, active > 0 {
                let step = (current - target + active - 1) / active
                return Self.duration(min(y + step, event.point) + windowNs)
            }
            current = next
            y = event.point
            active += event.delta
        }
        // Unreachable in practice: after the last end committed is 0 ≤ target.
        return Self.duration(max(y + windowNs, nowNs))
    }

    /// Records a transmission of `airtime` that started at `start`. Forgets what no window
    /// from `start` onwards can contain.
    public mutating func record(airtime: Duration, at start: Duration) {
        let s = Self.nanoseconds(start)
        records.append(Interval(start: s, end: s + Self.nanosecondsUp(airtime)))
        let horizon = s - Self.nanoseconds(window)
        if let first = records.first, first.end <= horizon {
            records.removeAll { $0.end <= horizon }
        }
    }

    /// Airtime recorded in the window ending at `now`: `[now − window, now]`.
    public func used(now: Duration) -> Duration {
        let nowNs = Self.nanoseconds(now)
        let from = nowNs - Self.nanoseconds(window)
        return Self.duration(records.reduce(0) { $0 + max(0, min($1.end, nowNs) - max($1.start, from)) })
    }

    /// What this class of traffic could still send at `now` (allowance − airtime committed since
    /// `now − window`), never negative; `nil` = unlimited.
    public func remaining(now: Duration, emergency: Bool = false) -> Duration? {
        guard let allowance = allowance(emergency: emergency) else { return nil }
        let from = Self.nanoseconds(now) - Self.nanoseconds(window)
        return Self.duration(max(0, Self.nanoseconds(allowance) - committed(from: from)))
    }

    /// ``used(now:)`` as a fraction of ``limit`` (0 with no limit).
    public func usedFraction(now: Duration) -> Double {
        guard let limit, limit > .zero else { return 0 }
        return used(now: now) / limit
    }

    /// The recorded transmissions still remembered, as (start, airtime), oldest first.
    public var transmissions: [(start: Duration, airtime: Duration)] {
        records.map { (Self.duration($0.start), Self.duration($0.length)) }
    }

    private func committed(from y: Int64) -> Int64 {
        records.reduce(0) { $0 + max(0, $1.end - max($1.start, y)) }
    }

    /// The largest instant or span (either sign) the airtime arithmetic counts in, about 73
    /// years: ``nanoseconds(_:)`` holds anything longer there, so that adding a window or a
    /// frame's airtime to it cannot overflow. A clock reading that far out is not a box's
    /// uptime; it must not trap the mesh thread either (a test's manual clock once read
    /// 2 × 10¹⁶ s there, in a stale incremental build, and the overflow took the whole test
    /// process down: docs/testing.md).
    static let nanosecondsLimit: Int64 = 1 << 61

    /// `d` in whole nanoseconds, rounded down, held within ±``nanosecondsLimit``.
    static func nanoseconds(_ d: Duration) -> Int64 {
        let (seconds, attoseconds) = d.components
        let limitSeconds = nanosecondsLimit / 1_000_000_000
        guard seconds < limitSeconds else { return nanosecondsLimit }
        guard seconds > -limitSeconds else { return -nanosecondsLimit }
        // Floor division so negative instants round down too.
        let ns = attoseconds >= 0 ? attoseconds / 1_000_000_000 : (attoseconds - 999_999_999) / 1_000_000_000
        return seconds * 1_000_000_000 + ns
    }

    static func nanosecondsUp(_ d: Duration) -> Int64 {
        let floor = nanoseconds(d)
        return duration(floor) < d ? floor + 1 : floor
    }

    static func duration(_ ns: Int64) -> Duration { .nanoseconds(ns) }
}
