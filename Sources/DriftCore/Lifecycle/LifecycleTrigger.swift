/// Why a bottle changes state: the inputs of the lifecycle transition table.
public enum LifecycleTrigger: String, Sendable, Codable, CaseIterable {
    /// Every ambient condition now holds.
    case conditionsMet
    /// An ambient condition stopped holding before anyone opened the bottle.
    case conditionsLost
    /// A visitor opened it for the first time.
    case firstOpen
    /// The chat survival countdown started (last participant left, or the keeper hold ran out).
    case countdownStarted
    /// A participant re-entered during the countdown.
    case reentered
    /// Someone claimed Keep Alive during the countdown.
    case keepAliveClaimed
    /// The countdown ran out with no activity.
    case countdownEnded
    /// The bottle's hard expiry time passed.
    case hardExpiry
    /// A one-shot bottle's single reader left.
    case oneShotConsumed
    /// Its creator retired it.
    case retired
}
