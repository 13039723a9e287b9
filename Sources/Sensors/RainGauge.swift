import Hardware

/// Counts a tipping-bucket rain gauge from the edges of its reed switch.
/// A pure state machine: feed edge timestamps (any monotonic `Duration`,
/// e.g. ``GPIOEdgeEvent/timestamp``), ask for totals with an explicit `now`.
///
/// **One tip** is one active edge (the switch closing; `.rising` in libgpiod's
/// logical terms, whatever the line's polarity).
///
/// **Bounce filter**: an active edge less than ``bounceWindow`` (default 50 ms)
/// after the previous active edge — counted or not — is contact bounce and is
/// ignored (counted in ``ignoredEdges``). So a burst of chatter of any length
/// is one tip, and two tips are counted as long as the bucket pauses 50 ms
/// between them; a real bucket needs ≥ 0.5 s per tip even in a cloudburst
/// (0.2794 mm/tip at 500 mm/h is one tip every 2 s).
///
/// Tip times are kept for ``history`` (default 24 h) for ``rainfall(inLast:now:)``;
/// ``totalTips`` counts since creation.
public struct RainGauge: Sendable, Equatable {
    /// Millimetres of rain per tip of the common 0.011-inch bucket (e.g. SparkFun/Misol gauges).
    public static let defaultMillimetresPerTip = 0.2794
    /// Active edges closer than this to the previous one are bounce.
    public static let defaultBounceWindow = Duration.milliseconds(50)
    /// How long tip times are kept.
    public static let defaultHistory = Duration.seconds(24 * 3600)
    /// The most tip times kept, whatever the history, so a shorted line cannot grow memory
    /// (a day of one tip every second, far beyond any real rain).
    public static let maximumKeptTips = 86_400

    public let millimetresPerTip: Double
    public let bounceWindow: Duration
    public let history: Duration

    /// Tips counted since creation.
    public private(set) var totalTips = 0
    /// Active edges dropped as bounce since creation.
    public private(set) var ignoredEdges = 0
    /// Times of counted tips within ``history``, oldest first.
    public private(set) var tipTimes: [Duration] = []
    /// Time of the last active edge (counted or ignored).
    private var lastActiveEdge: Duration?

    /// - Parameters:
    ///   - millimetresPerTip: must be positive (a configuration value; validate it first).
    ///   - bounceWindow: must not be negative.
    ///   - history: must be positive.
    public init(
        millimetresPerTip: Double = RainGauge.defaultMillimetresPerTip,
        bounceWindow: Duration = RainGauge.defaultBounceWindow,
        history: Duration = RainGauge.defaultHistory
    ) {
        precondition(millimetresPerTip > 0 && millimetresPerTip.isFinite, "millimetres per tip must be positive")
        precondition(bounceWindow >= .zero, "bounce window must not be negative")
        precondition(history > .zero, "history must be positive")
        self.millimetresPerTip = millimetresPerTip
        self.bounceWindow = bounceWindow
        self.history = history
    }

    /// Records an active edge (the switch closing) at `time`.
    ///
    /// A time earlier than the previous edge is treated as that edge's time
    /// (so it is bounce).
    /// - Returns: whether it counted as a tip.
    @discardableResult
    public mutating func recordActiveEdge(at time: Duration) -> Bool {
        let time = max(time, lastActiveEdge ?? time)
        defer { lastActiveEdge = time }
        if let last = lastActiveEdge, time - last < bounceWindow {
            ignoredEdges += 1
            return false
        }
        totalTips += 1
        tipTimes.append(time)
        prune(now: time)
        return true
    }

    /// Records a line edge: `.rising` (became active) may be a tip, `.falling` is ignored.
    @discardableResult
    public mutating func record(_ event: GPIOEdgeEvent) -> Bool {
        guard event.edge == .rising else { return false }
        return recordActiveEdge(at: event.timestamp)
    }

    /// Tips counted in the `window` ending at `now` (times in `(now - window, now]`).
    /// Windows longer than ``history`` see only ``history``.
    public func tips(inLast window: Duration, now: Duration) -> Int {
        let start = now - min(window, history)
        return tipTimes.reduce(0) { $0 + ($1 > start && $1 <= now ? 1 : 0) }
    }

    /// Rain in millimetres in the `window` ending at `now`.
    public func rainfall(inLast window: Duration, now: Duration) -> Double {
        Double(tips(inLast: window, now: now)) * millimetresPerTip
    }

    /// Rain in millimetres since creation.
    public var totalMillimetres: Double {
        Double(totalTips) * millimetresPerTip
    }

    /// Drops tip times older than ``history`` before `now` (also done on every tip).
    public mutating func prune(now: Duration) {
        let oldest = now - history
        if let keep = tipTimes.firstIndex(where: { $0 > oldest }) {
            if keep > 0 { tipTimes.removeFirst(keep) }
        } else {
            tipTimes.removeAll()
        }
        if tipTimes.count > Self.maximumKeptTips {
            tipTimes.removeFirst(tipTimes.count - Self.maximumKeptTips)
        }
    }
}
