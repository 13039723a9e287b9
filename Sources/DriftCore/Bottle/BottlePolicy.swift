import Foundation

/// Box-wide bounds for new bottles.
public struct BottlePolicy: Sendable, Equatable, Codable {
    /// Longest allowed lifetime (default 30 days).
    public var maximumLifetime: TimeInterval
    /// Lifetime when the creator does not choose (default 7 days).
    public var defaultLifetime: TimeInterval
    /// Most conditions on one bottle (default 16).
    public var maximumConditions: Int
    /// Longest hint, characters (default 200).
    public var maximumHintLength: Int

    public init(maximumLifetime: TimeInterval = 30 * 86_400, defaultLifetime: TimeInterval = 7 * 86_400,
                maximumConditions: Int = 16, maximumHintLength: Int = 200) {
        self.maximumLifetime = maximumLifetime
        self.defaultLifetime = defaultLifetime
        self.maximumConditions = maximumConditions
        self.maximumHintLength = maximumHintLength
    }
}
