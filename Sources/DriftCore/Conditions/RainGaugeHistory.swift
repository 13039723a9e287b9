import Foundation

/// Tipping-bucket rain gauge history: when it started listening and every tip since.
public struct RainGaugeHistory: Sendable, Equatable, Codable {
    /// A common tipping-bucket gauge: 0.2794 mm (0.011 in) per tip.
    public static let standardMillimetresPerTip = 0.2794

    public var listeningSince: Date
    public var tips: [Date]
    public var millimetresPerTip: Double

    public init(listeningSince: Date, tips: [Date], millimetresPerTip: Double = RainGaugeHistory.standardMillimetresPerTip) {
        self.listeningSince = listeningSince
        self.tips = tips.sorted()
        self.millimetresPerTip = millimetresPerTip
    }

    /// Rain in millimetres in the `seconds` before `now`.
    public func millimetres(inLast seconds: TimeInterval, before now: Date) -> Double {
        let start = now.addingTimeInterval(-seconds)
        return Double(tips.filter { $0 > start && $0 <= now }.count) * millimetresPerTip
    }
}
