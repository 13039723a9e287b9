import Foundation

/// Staleness and quality limits applied when evaluating conditions.
///
/// Defaults: a GPS fix counts for 10 min and must be 3D, or 2D with HDOP ≤ 5;
/// sensor readings count for 15 min; a pressure trend needs a reading within
/// ±max(15 min, 10 % of the period) of its start and a change of at least
/// 0.5 hPa per hour (1.5 hPa over 3 h) to be rising or falling.
public struct ConditionLimits: Sendable, Equatable, Codable {
    public var maximumFixAge: TimeInterval
    public var maximumHDOP: Double
    public var maximumReadingAge: TimeInterval
    public var pressureTrendPerHour: Double
    public var minimumTrendTolerance: TimeInterval

    public init(maximumFixAge: TimeInterval = 600, maximumHDOP: Double = 5,
                maximumReadingAge: TimeInterval = 900, pressureTrendPerHour: Double = 0.5,
                minimumTrendTolerance: TimeInterval = 900) {
        self.maximumFixAge = maximumFixAge
        self.maximumHDOP = maximumHDOP
        self.maximumReadingAge = maximumReadingAge
        self.pressureTrendPerHour = pressureTrendPerHour
        self.minimumTrendTolerance = minimumTrendTolerance
    }
}
