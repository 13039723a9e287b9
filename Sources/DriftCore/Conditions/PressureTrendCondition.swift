/// Pressure trend over the last `hours` (1–24).
public struct PressureTrendCondition: Sendable, Equatable, Hashable, Codable {
    public var trend: PressureTrend
    public var hours: Int
    public init(trend: PressureTrend, hours: Int) {
        self.trend = trend
        self.hours = hours
    }
}
