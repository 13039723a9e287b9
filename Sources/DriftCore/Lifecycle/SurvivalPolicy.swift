import Foundation

/// Chat survival durations (defaults from the product brief).
public struct SurvivalPolicy: Sendable, Equatable, Codable {
    /// How long an empty chat held by a keeper survives after the last presence or
    /// Keep Alive claim (default 1 h). Also the lifespan the first open gives.
    public var lifespan: TimeInterval
    /// The countdown after the last participant leaves with no keeper hold (default 30 s).
    public var countdown: TimeInterval

    public init(lifespan: TimeInterval = 3600, countdown: TimeInterval = 30) {
        precondition(lifespan > 0 && countdown > 0, "survival durations must be positive")
        self.lifespan = lifespan
        self.countdown = countdown
    }
}
