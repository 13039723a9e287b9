import Foundation

/// The survival state machine of an opened bottle's chat. Pure and restart-safe.
///
/// Rules (see `docs/lifecycle.md`), with lifespan L (1 h) and countdown C (30 s):
/// 1. The first open makes the chat alive with its opener present; the lifespan runs to open + L.
/// 2. While anyone is present nothing can end it except the hard expiry.
/// 3. When the last participant leaves at t, the lifespan is renewed to t + L. With a
///    keeper claim, the chat stays alive (held) until the lifespan ends; without one,
///    the countdown starts at once: dying, deadline t + C.
/// 4. Re-entry during the countdown, or a Keep Alive claim at any time, makes the
///    claimer the keeper, renews the lifespan to now + L and (when dying) stops the
///    countdown.
/// 5. When a keeper hold ends with nobody inside, the countdown starts at that instant.
/// 6. When the countdown ends with no activity, the chat expires.
/// 7. One-shot bottles have no countdown and no Keep Alive: when their reader leaves they expire.
/// 8. Hard expiry ends the chat in any phase.
///
/// All times are absolute, so a state loaded after a restart is judged by
/// ``resume(at:)``: participants who were inside are taken to have left at
/// ``presenceSeenAt``, and deadlines that passed while the daemon was down end now
/// (reported with their real time).
public struct ChatSurvival: Sendable, Equatable, Codable {
    /// Where the chat stands.
    public enum Phase: Sendable, Equatable, Codable {
        /// Someone is inside, or a keeper holds it.
        case alive
        /// Nobody inside and no hold: ends at `deadline` unless someone comes back.
        case countingDown(deadline: Date)
        /// Over, at `at`, for `reason` (the lifecycle trigger that ended it).
        case expired(at: Date, reason: LifecycleTrigger)
    }

    /// What the caller must do after a call: lifecycle triggers to apply to the bottle
    /// (in order) and keeper changes to announce.
    public enum Action: Sendable, Equatable {
        /// Apply this trigger to the bottle (``Bottle/apply(_:at:)``); `at` may lie in the past after a restart.
        case transition(LifecycleTrigger, at: Date)
        /// The keeper changed (nil: the hold ended).
        case keeperChanged(KeeperClaim?)
    }

    public let policy: SurvivalPolicy
    public let isOneShot: Bool
    /// The bottle's hard expiry.
    public let hardExpiresAt: Date
    public private(set) var phase: Phase
    /// Participants inside now.
    public private(set) var present: Set<ParticipantID>
    /// The end of the lifespan: last presence or claim + L.
    public private(set) var lifespanEndsAt: Date
    /// Last instant anyone was known to be inside (refreshed by events and ticks).
    public private(set) var presenceSeenAt: Date
    public private(set) var keeper: KeeperClaim?

    /// The state right after the first open by `opener` at `now`.
    public static func firstOpen(by opener: ParticipantID, at now: Date, hardExpiresAt: Date,
                                 isOneShot: Bool, policy: SurvivalPolicy = SurvivalPolicy()) -> ChatSurvival {
        ChatSurvival(policy: policy, isOneShot: isOneShot, hardExpiresAt: hardExpiresAt, phase: .alive,
                     present: [opener], lifespanEndsAt: now.addingTimeInterval(policy.lifespan),
                     presenceSeenAt: now, keeper: nil)
    }

    /// Whether the chat is over.
    public var isExpired: Bool {
        if case .expired = phase { return true }
        return false
    }

    /// The next instant at which ``tick(at:)`` may change something (for scheduling).
    public var nextDeadline: Date? {
        switch phase {
        case .expired: return nil
        case .countingDown(let deadline): return min(deadline, hardExpiresAt)
        case .alive:
            if present.isEmpty, keeper != nil { return min(lifespanEndsAt, hardExpiresAt) }
            return hardExpiresAt
        }
    }

    /// `participant` enters (opens the chat page / reconnects).
    /// - Throws: ``SurvivalError/expired`` once the chat is over.
    public mutating func enter(_ participant: ParticipantID, at now: Date) throws(SurvivalError) -> [Action] {
        var actions = advance(to: now)
        guard !isExpired else { throw .expired }
        present.insert(participant)
        presenceSeenAt = now
        if case .countingDown = phase {
            phase = .alive
            let claim = KeeperClaim(participant: participant, claimedAt: now)
            keeper = claim
            lifespanEndsAt = now.addingTimeInterval(policy.lifespan)
            actions += [.transition(.reentered, at: now), .keeperChanged(claim)]
        }
        return actions
    }

    /// `participant` leaves (closes the page, or its last connection drops).
    public mutating func leave(_ participant: ParticipantID, at now: Date) -> [Action] {
        var actions = advance(to: now)
        guard !isExpired, present.remove(participant) != nil, present.isEmpty else { return actions }
        presenceSeenAt = now
        actions += lastLeft(at: now)
        return actions
    }

    /// `participant` claims Keep Alive (in the page or with the box's button).
    /// - Throws: ``SurvivalError/expired`` when over, ``SurvivalError/oneShot`` for one-shot bottles.
    public mutating func claimKeepAlive(by participant: ParticipantID, at now: Date) throws(SurvivalError) -> [Action] {
        var actions = advance(to: now)
        guard !isExpired else { throw .expired }
        guard !isOneShot else { throw .oneShot }
        let claim = KeeperClaim(participant: participant, claimedAt: now)
        keeper = claim
        lifespanEndsAt = max(lifespanEndsAt, now.addingTimeInterval(policy.lifespan))
        if case .countingDown = phase {
            phase = .alive
            actions.append(.transition(.keepAliveClaimed, at: now))
        }
        actions.append(.keeperChanged(claim))
        return actions
    }

    /// Advances time to `now`: ends holds, countdowns and the hard expiry that are due.
    public mutating func tick(at now: Date) -> [Action] {
        advance(to: now)
    }

    /// Judges a state loaded after a daemon restart at `now`.
    ///
    /// Nobody can be inside a chat while the daemon is down: participants recorded
    /// as present left at ``presenceSeenAt``. Then deadlines are applied as if time
    /// had run normally, so a countdown that should have ended while the daemon
    /// was down ends now, stamped with its real deadline.
    public mutating func resume(at now: Date) -> [Action] {
        guard !isExpired else { return [] }
        var actions: [Action] = []
        if !present.isEmpty {
            let leftAt = presenceSeenAt
            present.removeAll()
            if leftAt >= hardExpiresAt {
                phase = .expired(at: hardExpiresAt, reason: .hardExpiry)
                return [.transition(.hardExpiry, at: hardExpiresAt)]
            }
            actions += lastLeft(at: leftAt)
        }
        return actions + advance(to: now)
    }

    // MARK: - Internals

    /// The last participant left at `time`.
    private mutating func lastLeft(at time: Date) -> [Action] {
        if isOneShot {
            phase = .expired(at: time, reason: .oneShotConsumed)
            return [.transition(.oneShotConsumed, at: time)]
        }
        lifespanEndsAt = max(lifespanEndsAt, time.addingTimeInterval(policy.lifespan))
        if keeper != nil { return [] } // held until the lifespan ends
        phase = .countingDown(deadline: time.addingTimeInterval(policy.countdown))
        return [.transition(.countdownStarted, at: time)]
    }

    /// Applies every deadline up to `now`, in time order.
    private mutating func advance(to now: Date) -> [Action] {
        var actions: [Action] = []
        if !present.isEmpty, case .alive = phase { presenceSeenAt = max(presenceSeenAt, min(now, hardExpiresAt)) }
        while true {
            switch phase {
            case .expired:
                return actions
            case .alive:
                if present.isEmpty, keeper != nil, lifespanEndsAt < hardExpiresAt, now >= lifespanEndsAt {
                    // The keeper hold ran out with nobody inside: countdown from that instant.
                    keeper = nil
                    phase = .countingDown(deadline: lifespanEndsAt.addingTimeInterval(policy.countdown))
                    actions += [.keeperChanged(nil), .transition(.countdownStarted, at: lifespanEndsAt)]
                    continue
                }
                if now >= hardExpiresAt {
                    phase = .expired(at: hardExpiresAt, reason: .hardExpiry)
                    actions.append(.transition(.hardExpiry, at: hardExpiresAt))
                }
                return actions
            case .countingDown(let deadline):
                if hardExpiresAt <= deadline, now >= hardExpiresAt {
                    phase = .expired(at: hardExpiresAt, reason: .hardExpiry)
                    actions.append(.transition(.hardExpiry, at: hardExpiresAt))
                } else if now >= deadline {
                    phase = .expired(at: deadline, reason: .countdownEnded)
                    actions.append(.transition(.countdownEnded, at: deadline))
                }
                return actions
            }
        }
    }
}

/// A survival operation refused.
public enum SurvivalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The chat is over.
    case expired
    /// One-shot bottles cannot be kept alive.
    case oneShot

    public var description: String {
        switch self {
        case .expired: "the chat has ended"
        case .oneShot: "a one-shot bottle cannot be kept alive"
        }
    }
}
