import Foundation

/// The weather inputs of the box; `nil` series mean the sensor is absent.
public struct WeatherSnapshot: Sendable, Equatable, Codable {
    public var temperature: SensorSeries?
    public var humidity: SensorSeries?
    public var pressure: SensorSeries?
    public var rainGauge: RainGaugeHistory?

    public init(temperature: SensorSeries? = nil, humidity: SensorSeries? = nil,
                pressure: SensorSeries? = nil, rainGauge: RainGaugeHistory? = nil) {
        self.temperature = temperature
        self.humidity = humidity
        self.pressure = pressure
        self.rainGauge = rainGauge
    }

    /// No weather sensors at all.
    public static let none = WeatherSnapshot()
}
