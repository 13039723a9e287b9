import Foundation

/// Decides which events reach a bottle's creator, and when. Pure, time injected.
///
/// - First open: always, once.
/// - Someone joins: at most one notice per ``Policy/joinInterval`` (default 10 min)
///   per bottle; joins in between are dropped (the next notice is about a later join).
/// - Lines while the creator is away (not present in the chat): counted, and sent
///   as one ``DriftEvent/Kind/linesWhileAway(count:)`` at most every
///   ``Policy/linesInterval`` (default 15 min) per bottle; lines posted while the
///   creator is present reset the count. ``flush(at:)`` releases counts whose
///   interval has passed.
/// - No event after expiry: once a bottle expired (``bottleExpired(_:)``), nothing
///   more is produced for it.
/// - Preferences (``NotificationPreferences``) switch kinds off.
public struct CreatorNotificationLimiter: Sendable, Equatable {
    public struct Policy: Sendable, Equatable, Codable {
        public var joinInterval: TimeInterval
        public var linesInterval: TimeInterval
        public init(joinInterval: TimeInterval = 600, linesInterval: TimeInterval = 900) {
            self.joinInterval = joinInterval
            self.linesInterval = linesInterval
        }
    }

    private struct BottleState: Sendable, Equatable {
        var firstOpenSent = false
        var lastJoinSent: Date?
        var lastLinesSent: Date?
        var pendingLines = 0
    }

    public let policy: Policy
    private var bottles: [BottleID: BottleState] = [:]
    private var expired = RecentSet<BottleID>(capacity: 10_000)

    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// The bottle was opened for the first time.
    public mutating func firstOpen(_ bottle: BottleID, at now: Date, distance: Double?,
                                   preferences: NotificationPreferences = NotificationPreferences()) -> DriftEvent? {
        guard !expired.contains(bottle), preferences.firstOpen, bottles[bottle]?.firstOpenSent != true else { return nil }
        bottles[bottle, default: BottleState()].firstOpenSent = true
        return DriftEvent(bottle: bottle, at: now, kind: .firstOpen(distanceTravelledMeters: distance))
    }

    /// `participant` joined the chat.
    public mutating func participantJoined(_ participant: ParticipantID, in bottle: BottleID, at now: Date,
                                           preferences: NotificationPreferences = NotificationPreferences()) -> DriftEvent? {
        guard !expired.contains(bottle), preferences.participantJoined else { return nil }
        var state = bottles[bottle] ?? BottleState()
        if let last = state.lastJoinSent, now.timeIntervalSince(last) < policy.joinInterval { return nil }
        state.lastJoinSent = now
        bottles[bottle] = state
        return DriftEvent(bottle: bottle, at: now, kind: .participantJoined(participant))
    }

    /// A line was posted; `creatorPresent` tells whether the creator is in the chat.
    public mutating func linePosted(in bottle: BottleID, at now: Date, creatorPresent: Bool,
                                    preferences: NotificationPreferences = NotificationPreferences()) -> DriftEvent? {
        guard !expired.contains(bottle), preferences.linesWhileAway else { return nil }
        var state = bottles[bottle] ?? BottleState()
        defer { bottles[bottle] = state }
        if creatorPresent {
            state.pendingLines = 0
            return nil
        }
        state.pendingLines += 1
        if let last = state.lastLinesSent, now.timeIntervalSince(last) < policy.linesInterval { return nil }
        let count = state.pendingLines
        state.pendingLines = 0
        state.lastLinesSent = now
        return DriftEvent(bottle: bottle, at: now, kind: .linesWhileAway(count: count))
    }

    /// Releases held line counts whose interval has passed.
    public mutating func flush(at now: Date) -> [DriftEvent] {
        var events: [DriftEvent] = []
        for (bottle, var state) in bottles where state.pendingLines > 0 {
            if let last = state.lastLinesSent, now.timeIntervalSince(last) < policy.linesInterval { continue }
            events.append(DriftEvent(bottle: bottle, at: now, kind: .linesWhileAway(count: state.pendingLines)))
            state.pendingLines = 0
            state.lastLinesSent = now
            bottles[bottle] = state
        }
        return events.sorted { $0.bottle < $1.bottle }
    }

    /// The bottle expired: forget it and produce nothing more for it.
    public mutating func bottleExpired(_ bottle: BottleID) {
        bottles[bottle] = nil
        expired.insert(bottle)
    }

    /// When the next held count becomes due, for scheduling ``flush(at:)``.
    public var nextFlush: Date? {
        bottles.values.filter { $0.pendingLines > 0 }
            .compactMap { $0.lastLinesSent?.addingTimeInterval(policy.linesInterval) }.min()
    }
}
