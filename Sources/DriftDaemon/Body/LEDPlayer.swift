/// Plays patterns on several LEDs: remembers when each LED's pattern started,
/// so a pattern that stays the same keeps its phase, and answers the level of
/// each LED and the next time any LED changes. Pure; times are monotonic.
///
/// ```swift
/// player.update(mapping.shows(for: state, now: now), now: now)
/// for role in LEDRole.allCases { try line[role]?.set(player.level(role, at: now)) }
/// // sleep until min(player.nextChange(after: now), mapping.nextReevaluation(…), new state)
/// ```
public struct LEDPlayer: Sendable, Equatable {
    private var playing: [LEDRole: (pattern: LEDPattern, start: Duration)] = [:]

    public init() {}

    public static func == (lhs: LEDPlayer, rhs: LEDPlayer) -> Bool {
        lhs.playing.count == rhs.playing.count && lhs.playing.allSatisfy { role, entry in
            rhs.playing[role].map { $0.pattern == entry.pattern && $0.start == entry.start } ?? false
        }
    }

    /// Applies new shows: an LED whose pattern changed (or whose show names a new
    /// start) restarts at its show's start, or `now`.
    public mutating func update(_ shows: [LEDRole: LEDMapping.Show], now: Duration) {
        for (role, show) in shows {
            let current = playing[role]
            if let startedAt = show.startedAt {
                if current?.pattern != show.pattern || current?.start != startedAt {
                    playing[role] = (show.pattern, startedAt)
                }
            } else if current?.pattern != show.pattern {
                playing[role] = (show.pattern, now)
            }
        }
    }

    /// The pattern an LED is playing (`off` if none).
    public func pattern(_ role: LEDRole) -> LEDPattern {
        playing[role]?.pattern ?? .off
    }

    /// When the pattern `role` plays started (`nil` if none).
    public func start(_ role: LEDRole) -> Duration? {
        playing[role]?.start
    }

    /// The level of `role` at `now`.
    public func level(_ role: LEDRole, at now: Duration) -> Bool {
        guard let entry = playing[role] else { return false }
        return entry.pattern.level(at: now - entry.start)
    }

    /// The earliest time after `now` at which any LED changes level; `nil` if none will.
    public func nextChange(after now: Duration) -> Duration? {
        nextChange(after: now, roles: Set(LEDRole.allCases))
    }

    /// The earliest time after `now` at which one of `roles` (e.g. the fitted LEDs) changes level.
    public func nextChange(after now: Duration, roles: Set<LEDRole>) -> Duration? {
        playing.compactMap { role, entry in
            guard roles.contains(role) else { return nil }
            return entry.pattern.nextChange(after: now - entry.start).map { $0 + entry.start }
        }.min()
    }
}
