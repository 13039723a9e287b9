/// The radio's outgoing queue: priority classes, bounded per class, released only within the
/// airtime budget and, for background traffic, only while the channel is not busy.
///
/// Order: emergency > interactive > normal > background, first in first out within a class.
/// The head of the most urgent non-empty class decides: if the budget makes it wait, nothing
/// less urgent overtakes it (lower classes would only eat the budget it waits for). The one
/// exception is background traffic, which is simply skipped while the channel is busy — busy
/// with foreground traffic: background frames heard and sent do not hold background frames
/// back, unless ``Settings/backgroundYieldsToBackground``.
///
/// ``next(now:)`` books what it returns: the frame is counted in the ``budget`` and the
/// ``utilisation`` as transmitted at `now`, so the caller must put it on air right away; the
/// next frame is not released before this one has left the air (``onAirUntil``).
/// Pure: time comes in as `now`.
public struct TransmitQueue: Sendable {
    /// Tuning knobs.
    public struct Settings: Sendable, Hashable {
        /// Maximum frames waiting per class; when full, the oldest of that class is dropped.
        public var capacity: [TransmitPriority: Int]
        /// Background frames wait while the channel is busier than this (fraction, 0.25 = 25 %).
        public var backgroundUtilisationThreshold: Double
        /// Window over which that busy fraction is measured.
        public var utilisationWindow: Duration
        /// How long to wait before looking again when background traffic is deferred.
        public var backgroundRecheck: Duration
        /// Whether background traffic — ours as it goes out, other boxes' as
        /// ``noteReception(airtime:endingAt:background:)`` says — counts in the busy fraction
        /// the background class obeys. `false` (the default): only foreground traffic does,
        /// so catch-up frames yield to the flood and hellos, not to each other; they are spread
        /// by random answer delays and listen-before-talk instead. With `true` (the rule before)
        /// a neighbourhood busy catching a box up held its own answers back at 25 %: in the
        /// simulator boxes back from 12 minutes off that lacked some 80 packets got 0.62 of
        /// them within 5 minutes, against 0.87 (docs/mesh-simulation.md).
        public var backgroundYieldsToBackground: Bool

        public init(
            capacity: [TransmitPriority: Int] = [.emergency: 16, .interactive: 64, .normal: 128, .background: 32],
            backgroundUtilisationThreshold: Double = 0.25,
            utilisationWindow: Duration = .seconds(60),
            backgroundRecheck: Duration = .seconds(5),
            backgroundYieldsToBackground: Bool = false
        ) {
            self.capacity = capacity
            self.backgroundUtilisationThreshold = backgroundUtilisationThreshold
            self.utilisationWindow = utilisationWindow
            self.backgroundRecheck = backgroundRecheck
            self.backgroundYieldsToBackground = backgroundYieldsToBackground
        }
    }

    /// What to do now.
    public enum Decision: Sendable, Hashable {
        /// Put this frame on air now (already booked in the budget).
        case send(OutgoingFrame)
        /// Nothing may go before this instant; ask again then (or when something new is queued).
        case wait(until: Duration)
        /// Nothing queued.
        case idle
    }

    /// What ``enqueue(_:)`` did.
    public enum EnqueueResult: Sendable, Hashable {
        case queued
        /// Queued, and the oldest frame of the same class (this id) was dropped to make room.
        case queuedDroppingOldest(id: UInt64)
        /// Refused: the frame can never be sent (too long for the dwell limit or the budget).
        case refused(AirtimeRefusal)
    }

    public let settings: Settings
    /// The transmit budget; every frame ``next(now:)`` releases is recorded in it.
    public private(set) var budget: AirtimeBudget
    /// Channel utilisation, fed by released frames and ``noteReception(airtime:endingAt:background:)``.
    public private(set) var utilisation: ChannelUtilisation
    /// The same without background traffic, over the last ``Settings/utilisationWindow``:
    /// what the background class obeys (unless ``Settings/backgroundYieldsToBackground``).
    public private(set) var foreground: ChannelUtilisation
    /// Frames dropped to make room, per class.
    public private(set) var droppedOldest: [TransmitPriority: Int] = [:]
    /// Frames refused at enqueue because they could never be sent, per class.
    public private(set) var refused: [TransmitPriority: Int] = [:]
    /// When the last released frame leaves the air; nothing else is released before then
    /// (the radio sends one frame at a time).
    public private(set) var onAirUntil: Duration?
    /// Time the budget held the queue back — its most urgent frame waiting for airtime to
    /// come free — per class of that frame, over spells that have ended (a frame released,
    /// or nothing left to wait), and the number of such spells. What a duty cycle costs a box.
    public private(set) var budgetHeld: [TransmitPriority: Duration] = [:]
    public private(set) var budgetHeldSpells = 0
    /// The spell in progress: since when, and the class of the frame it began with.
    private var budgetHeldSince: (at: Duration, priority: TransmitPriority)?

    private var queues: [TransmitPriority: [OutgoingFrame]] = [:]

    public init(budget: AirtimeBudget, utilisation: ChannelUtilisation = ChannelUtilisation(), settings: Settings = Settings()) {
        self.budget = budget
        self.utilisation = utilisation
        self.foreground = ChannelUtilisation(horizon: max(settings.utilisationWindow, .seconds(1)))
        self.settings = settings
    }

    /// Frames waiting in `priority`'s class, oldest first.
    public func pending(_ priority: TransmitPriority) -> [OutgoingFrame] { queues[priority] ?? [] }

    /// Frames waiting in all classes.
    public var count: Int { queues.values.reduce(0) { $0 + $1.count } }

    /// Queues `frame` behind others of its class.
    @discardableResult
    public mutating func enqueue(_ frame: OutgoingFrame) -> EnqueueResult {
        if let refusal = budget.refusal(airtime: frame.airtime, emergency: frame.priority == .emergency) {
            refused[frame.priority, default: 0] += 1
            return .refused(refusal)
        }
        let capacity = max(1, settings.capacity[frame.priority] ?? 32)
        var queue = queues[frame.priority] ?? []
        var dropped: UInt64?
        if queue.count >= capacity {
            dropped = queue.removeFirst().id
            droppedOldest[frame.priority, default: 0] += 1
        }
        queue.append(frame)
        queues[frame.priority] = queue
        return dropped.map { .queuedDroppingOldest(id: $0) } ?? .queued
    }

    /// Whether the frame `id` is still queued.
    public func contains(id: UInt64) -> Bool {
        queues.values.contains { $0.contains { $0.id == id } }
    }

    /// Puts `bytes` (their airtime with `modulation`) in place of the queued frame `id`, which
    /// keeps its place and priority; `false` when it is no longer queued.
    @discardableResult
    public mutating func replace(id: UInt64, bytes: [UInt8], modulation: LoRaModulation) -> Bool {
        for priority in TransmitPriority.allCases {
            guard let index = queues[priority]?.firstIndex(where: { $0.id == id }) else { continue }
            queues[priority]?[index] = OutgoingFrame(id: id, bytes: bytes, modulation: modulation, priority: priority)
            return true
        }
        return false
    }

    /// Removes a waiting frame (e.g. acknowledged or expired before it went out); true if found.
    @discardableResult
    public mutating func remove(id: UInt64) -> Bool {
        for priority in TransmitPriority.allCases {
            if let index = queues[priority]?.firstIndex(where: { $0.id == id }) {
                queues[priority]?.remove(at: index)
                return true
            }
        }
        return false
    }

    /// Records a packet heard from another node, for the utilisation the background class obeys;
    /// `background`: a frame of another box's background traffic (catch-up), which counts only
    /// in ``utilisation`` (unless ``Settings/backgroundYieldsToBackground``).
    public mutating func noteReception(airtime: Duration, endingAt end: Duration, background: Bool = false) {
        utilisation.recordReception(airtime: airtime, endingAt: end)
        if !background { foreground.recordReception(airtime: airtime, endingAt: end) }
    }

    /// The busy fraction the background class obeys at `now`.
    func backgroundBusyFraction(now: Duration) -> Double {
        (settings.backgroundYieldsToBackground ? utilisation : foreground).busyFraction(over: settings.utilisationWindow, now: now)
    }

    /// ``budgetHeld`` with a spell still going on at `now` counted up to `now`.
    public func budgetHeld(now: Duration) -> [TransmitPriority: Duration] {
        var held = budgetHeld
        if let since = budgetHeldSince, now > since.at { held[since.priority, default: .zero] += now - since.at }
        return held
    }

    /// The same over all classes.
    public func budgetHeldTotal(now: Duration) -> Duration {
        budgetHeld(now: now).values.reduce(.zero, +)
    }

    /// The next frame allowed to go at `now` (dequeued and booked), or when to ask again.
    public mutating func next(now: Duration) -> Decision {
        let (decision, heldClass) = decide(now: now)
        if let heldClass {
            if budgetHeldSince == nil { budgetHeldSince = (now, heldClass) }
            return decision
        }
        if budgetHeldSince != nil {
            budgetHeld = budgetHeld(now: now)
            budgetHeldSpells += 1
            budgetHeldSince = nil
        }
        return decision
    }

    /// ``next(now:)``'s decision, and the class of the frame that waits for the budget when
    /// the budget is what it waits for.
    private mutating func decide(now: Duration) -> (Decision, heldClass: TransmitPriority?) {
        if count == 0 { return (.idle, nil) }
        if let onAirUntil, now < onAirUntil { return (.wait(until: onAirUntil), nil) }
        var wake: Duration?
        for priority in TransmitPriority.allCases.reversed() {
            guard let head = queues[priority]?.first else { continue }
            if priority == .background, backgroundBusyFraction(now: now) > settings.backgroundUtilisationThreshold {
                let recheck = now + settings.backgroundRecheck
                wake = wake.map { min($0, recheck) } ?? recheck
                continue
            }
            let emergency = priority == .emergency
            guard let start = budget.earliestStart(airtime: head.airtime, now: now, emergency: emergency) else {
                // Cannot happen for frames accepted by enqueue; drop rather than block the class.
                queues[priority]?.removeFirst()
                refused[priority, default: 0] += 1
                return decide(now: now)
            }
            if start <= now {
                queues[priority]?.removeFirst()
                budget.record(airtime: head.airtime, at: now)
                utilisation.recordTransmission(airtime: head.airtime, at: now)
                if priority != .background { foreground.recordTransmission(airtime: head.airtime, at: now) }
                onAirUntil = now + head.airtime
                return (.send(head), nil)
            }
            // The most urgent waiting frame holds the line.
            return (.wait(until: wake.map { min($0, start) } ?? start), priority)
        }
        return (wake.map { .wait(until: $0) } ?? .idle, nil)
    }
}
