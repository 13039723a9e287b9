/// Direction of the pressure change over a period.
public enum PressureTrend: String, Sendable, Codable, CaseIterable {
    case rising, falling, steady
}
