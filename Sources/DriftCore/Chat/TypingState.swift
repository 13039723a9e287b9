import Foundation

/// Who is typing in one chat; a signal lasts ``timeout`` seconds (default 5) unless renewed.
public struct TypingState: Sendable, Equatable {
    public let timeout: TimeInterval
    private var lastSignal: [ParticipantID: Date] = [:]

    public init(timeout: TimeInterval = 5) {
        self.timeout = timeout
    }

    /// `participant` sent a typing signal at `now`.
    public mutating func typing(_ participant: ParticipantID, at now: Date) {
        lastSignal[participant] = now
    }

    /// `participant` sent their line or left: no longer typing.
    public mutating func stopped(_ participant: ParticipantID) {
        lastSignal[participant] = nil
    }

    /// Participants typing at `now`, in id order.
    public func typing(at now: Date) -> [ParticipantID] {
        lastSignal.filter { now.timeIntervalSince($0.value) < timeout }.keys.sorted()
    }

    /// Drops expired signals and returns whose ended (for a "stopped typing" broadcast).
    public mutating func expire(at now: Date) -> [ParticipantID] {
        let ended = lastSignal.filter { now.timeIntervalSince($0.value) >= timeout }.keys.sorted()
        for participant in ended { lastSignal[participant] = nil }
        return ended
    }

    /// When the next signal runs out, for scheduling.
    public var nextExpiry: Date? {
        lastSignal.values.min().map { $0.addingTimeInterval(timeout) }
    }
}
