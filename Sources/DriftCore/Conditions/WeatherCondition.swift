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
