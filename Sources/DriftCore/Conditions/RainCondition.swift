/// Rain in the last `withinMinutes` (1–1440) of at least `minimumMillimetres`
/// (default one tip of the standard gauge, 0.2794 mm).
public struct RainCondition: Sendable, Equatable, Hashable, Codable {
    public var withinMinutes: Int
    public var minimumMillimetres: Double
    public init(withinMinutes: Int, minimumMillimetres: Double = RainGaugeHistory.standardMillimetresPerTip) {
        self.withinMinutes = withinMinutes
        self.minimumMillimetres = minimumMillimetres
    }
}
