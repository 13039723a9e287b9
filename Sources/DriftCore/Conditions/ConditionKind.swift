/// Every kind of condition a bottle can report, including the bottle-level one-shot and expiry.
public enum ConditionKind: String, Sendable, Codable, CaseIterable {
    case password, presence
    case timeOfDay, daysOfWeek, dateRange, solar
    case temperature, humidity, pressure, pressureTrend, rain
    case boxPosition, distanceFromOrigin, delay
    case oneShot, expiry

    /// `false` for the visitor proofs (password, presence) checked at open.
    public var isAmbient: Bool {
        switch self {
        case .password, .presence: false
        default: true
        }
    }
}
