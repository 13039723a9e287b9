/// Turns a chattering input into clean level changes. A pure state machine:
/// no clock, no I/O, so every case is tested with explicit times.
///
/// A level counts as stable once the raw line has held it for at least
/// ``window`` after its last edge. Chatter inside the window yields one change
/// (stamped with the time of the last edge, when the line settled); a glitch
/// that returns to the stable level before the window ends yields none.
///
/// Feed raw edges with ``feed(_:at:)`` (it also reports a change that became
/// stable before that edge, so a late caller loses nothing), and call
/// ``poll(now:)`` at ``deadline`` to learn about the last one:
///
/// ```swift
/// var debouncer = Debouncer(initialLevel: try button.value())
/// // on each edge event:   if let change = debouncer.feed(event) { … }
/// // at debouncer.deadline: if let change = debouncer.poll(now: clock.now) { … }
/// ```
///
/// Needed because libgpiod v1 has no kernel debounce; times are any monotonic
/// `Duration` (e.g. ``GPIOEdgeEvent/timestamp``).
public struct Debouncer: Sendable, Equatable {
    /// A debounced level change.
    public struct Change: Sendable, Equatable {
        /// The new stable level.
        public var level: Bool
        /// When the raw line last changed to that level (the start of the stable period).
        public var at: Duration

        public init(level: Bool, at: Duration) {
            self.level = level
            self.at = at
        }
    }

    /// The default window, long enough for typical push buttons and reed switches.
    public static let defaultWindow = Duration.milliseconds(30)

    /// How long the raw level must hold before it counts.
    public let window: Duration
    /// The debounced level (last reported, or the initial level).
    public private(set) var level: Bool
    /// The raw level after the last edge fed.
    public private(set) var rawLevel: Bool
    /// Time of the last raw edge while a decision is pending.
    private var lastEdge: Duration?

    /// - Parameters:
    ///   - initialLevel: the line's level now, e.g. from ``GPIOInputRequest/value()``.
    ///   - window: must not be negative.
    public init(initialLevel: Bool, window: Duration = Debouncer.defaultWindow) {
        precondition(window >= .zero, "debounce window must not be negative")
        self.window = window
        self.level = initialLevel
        self.rawLevel = initialLevel
    }

    /// When ``poll(now:)`` can next report something; `nil` while nothing is pending.
    public var deadline: Duration? {
        lastEdge.map { $0 + window }
    }

    /// Records that the raw line is `level` from `time` on.
    ///
    /// Any edge restarts the window, even one to the level the line already
    /// had (a missed opposite edge is chatter too). A time earlier than the
    /// previous edge is treated as the previous edge's time.
    ///
    /// - Returns: the change that had become stable before this edge, if the
    ///   caller had not polled for it yet.
    @discardableResult
    public mutating func feed(_ level: Bool, at time: Duration) -> Change? {
        let settled = poll(now: time)
        let edgeTime = max(time, lastEdge ?? time)
        rawLevel = level
        lastEdge = edgeTime
        return settled
    }

    /// Reports the change that is stable at `now`, if any, once.
    public mutating func poll(now: Duration) -> Change? {
        guard let edge = lastEdge, now >= edge + window else { return nil }
        lastEdge = nil
        guard rawLevel != level else { return nil }
        level = rawLevel
        return Change(level: level, at: edge)
    }
}

extension Debouncer {
    /// Feeds an edge event's level and timestamp (see ``feed(_:at:)``).
    @discardableResult
    public mutating func feed(_ event: GPIOEdgeEvent) -> Change? {
        feed(event.edge.level, at: event.timestamp)
    }
}
