/// Opens only in some weather, measured by the box's own sensors.
public enum WeatherCondition: Sendable, Equatable, Hashable, Codable {
    /// Air temperature in °C within the range.
    case temperature(ValueRange)
    /// Relative humidity in % within the range.
    case humidity(ValueRange)
    /// Station pressure in hPa within the range.
    case pressure(ValueRange)
    /// Pressure rising, falling or steady over the last `hours`.
    case pressureTrend(PressureTrendCondition)
    /// At least `minimumMillimetres` of rain in the last `withinMinutes`.
    case rain(RainCondition)

    func validate() throws(DomainValidationError) {
        switch self {
        case .temperature(let range): try range.validate(field: "weather.temperature", limits: -60...70)
        case .humidity(let range): try range.validate(field: "weather.humidity", limits: 0...100)
        case .pressure(let range): try range.validate(field: "weather.pressure", limits: 300...1100)
        case .pressureTrend(let trend):
            guard (1...24).contains(trend.hours) else {
                throw DomainValidationError(field: "weather.pressureTrend.hours", value: "\(trend.hours)", problem: "must be 1–24")
            }
        case .rain(let rain):
            guard (1...1440).contains(rain.withinMinutes) else {
                throw DomainValidationError(field: "weather.rain.withinMinutes", value: "\(rain.withinMinutes)", problem: "must be 1–1440")
            }
            guard rain.minimumMillimetres.isFinite, rain.minimumMillimetres > 0, rain.minimumMillimetres <= 500 else {
                throw DomainValidationError(field: "weather.rain.minimumMillimetres", value: "\(rain.minimumMillimetres)", problem: "must be above 0 and at most 500")
            }
        }
    }
}

/// A closed range with optional ends: `minimum ≤ value ≤ maximum`.
public struct ValueRange: Sendable, Equatable, Hashable, Codable {
    public var minimum: Double?
    public var maximum: Double?

    public init(minimum: Double? = nil, maximum: Double? = nil) {
        self.minimum = minimum
        self.maximum = maximum
    }

    public func contains(_ value: Double) -> Bool {
        if let minimum, value < minimum { return false }
        if let maximum, value > maximum { return false }
        return true
    }

    func validate(field: String, limits: ClosedRange<Double>) throws(DomainValidationError) {
        guard minimum != nil || maximum != nil else {
            throw DomainValidationError(field: field, value: "", problem: "needs a minimum or a maximum")
        }
        for bound in [minimum, maximum].compactMap({ $0 }) where !(bound.isFinite && limits.contains(bound)) {
            throw DomainValidationError(field: field, value: "\(bound)",
                                        problem: "must be between \(Text.number(limits.lowerBound)) and \(Text.number(limits.upperBound))")
        }
        if let minimum, let maximum, maximum < minimum {
            throw DomainValidationError(field: field, value: "\(minimum)…\(maximum)", problem: "maximum is below minimum")
        }
    }

    /// "between 5 and 15 °C", "at least 5 °C", "at most 15 °C".
    func phrase(unit: String) -> String {
        switch (minimum, maximum) {
        case let (low?, high?): "between \(Text.number(low)) and \(Text.number(high)) \(unit)"
        case let (low?, nil): "at least \(Text.number(low)) \(unit)"
        case let (nil, high?): "at most \(Text.number(high)) \(unit)"
        case (nil, nil): "any value"
        }
    }
}

/// Direction of the pressure change over a period.
public enum PressureTrend: String, Sendable, Codable, CaseIterable {
    case rising, falling, steady
}

/// Pressure trend over the last `hours` (1–24).
public struct PressureTrendCondition: Sendable, Equatable, Hashable, Codable {
    public var trend: PressureTrend
    public var hours: Int
    public init(trend: PressureTrend, hours: Int) {
        self.trend = trend
        self.hours = hours
    }
}

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
