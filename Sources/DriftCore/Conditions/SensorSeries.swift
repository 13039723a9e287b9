import Foundation

/// One sensor reading.
public struct SensorReading: Sendable, Equatable, Codable {
    public var time: Date
    public var value: Double
    public init(time: Date, value: Double) {
        self.time = time
        self.value = value
    }
}

/// The recent history of one sensor quantity, oldest first.
///
/// Non-finite values are dropped on the way in, so a glitching sensor reads as
/// missing data rather than as a number.
public struct SensorSeries: Sendable, Equatable, Codable {
    public private(set) var readings: [SensorReading]

    public init(_ readings: [SensorReading]) {
        self.readings = readings.filter { $0.value.isFinite }.sorted { $0.time < $1.time }
    }

    /// The newest reading at or before `now`.
    public func latest(atOrBefore now: Date) -> SensorReading? {
        readings.last { $0.time <= now }
    }

    /// The reading closest in time to `target`.
    public func closest(to target: Date) -> SensorReading? {
        readings.min { abs($0.time.timeIntervalSince(target)) < abs($1.time.timeIntervalSince(target)) }
    }
}

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
