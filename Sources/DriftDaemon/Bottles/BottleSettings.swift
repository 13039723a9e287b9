import DriftCore
import Foundation

/// What the lifecycle processor needs to know about this box, from the configuration
/// and the data partition.
public struct BottleSettings: Sendable {
    /// This box's id (`[box] id`, or the generated one kept in the data directory).
    public var boxID: BoxID
    /// The box's participant-id key (kept on the data partition).
    public var secret: BoxSecret
    /// `[box] timezone`.
    public var timeZone: TimeZone
    /// `[box] latitude/longitude`, when configured (solar conditions without a fix).
    public var position: GeoPoint?
    /// `[box] country`.
    public var country: CountryCode?
    /// Whether the board has a presence button.
    public var hasPresenceButton: Bool
    /// Staleness and quality limits for condition inputs.
    public var limits: ConditionLimits
    /// Chat survival durations.
    public var survival: SurvivalPolicy
    /// Creator notification rate limits.
    public var notifications: CreatorNotificationLimiter.Policy
    /// Hashes new bottle passwords and verifies attempts (PBKDF2; a stored hash carries its
    /// own iteration count). Runs only on the processor's ``PasswordHashingPool``.
    public var passwordHasher: any PasswordHashing
    /// The hashing pool's threads and queue.
    public var passwordHashing: PasswordHashingPool.Configuration
    /// Password attempt limits.
    public var passwordLimits: PasswordRateLimiter.Policy
    /// While someone is inside a chat, how often its survival state is persisted (seconds),
    /// so a restart knows when they were last seen.
    public var presencePersistInterval: TimeInterval

    public init(
        boxID: BoxID, secret: BoxSecret, timeZone: TimeZone, position: GeoPoint? = nil, country: CountryCode? = nil,
        hasPresenceButton: Bool = true, limits: ConditionLimits = ConditionLimits(),
        survival: SurvivalPolicy = SurvivalPolicy(), notifications: CreatorNotificationLimiter.Policy = .init(),
        passwordHasher: any PasswordHashing = PasswordHasher(), passwordLimits: PasswordRateLimiter.Policy = .init(),
        passwordHashing: PasswordHashingPool.Configuration = .init(), presencePersistInterval: TimeInterval = 5
    ) {
        self.boxID = boxID
        self.secret = secret
        self.timeZone = timeZone
        self.position = position
        self.country = country
        self.hasPresenceButton = hasPresenceButton
        self.limits = limits
        self.survival = survival
        self.notifications = notifications
        self.passwordHasher = passwordHasher
        self.passwordLimits = passwordLimits
        self.passwordHashing = passwordHashing
        self.presencePersistInterval = presencePersistInterval
    }
}
