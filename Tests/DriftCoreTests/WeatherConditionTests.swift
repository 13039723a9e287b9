import DriftCore
import Foundation
import Testing

@Suite struct WeatherConditionTests {
    static let nowISO = "2024-06-01T12:00:00Z"
    var now: Date { Fixtures.date(Self.nowISO) }

    func report(_ weather: WeatherCondition, _ snapshot: WeatherSnapshot, limits: ConditionLimits = ConditionLimits()) throws -> ConditionReport {
        let bottle = try Fixtures.bottle([BottleCondition(.weather(weather))])
        var context = Fixtures.context(Self.nowISO)
        context.weather = snapshot
        context.limits = limits
        return ConditionEvaluator.report(for: bottle.conditions[0], of: bottle, in: context)
    }

    func series(_ points: [(minutesAgo: Double, value: Double)]) -> SensorSeries {
        SensorSeries(points.map { SensorReading(time: now.addingTimeInterval(-$0.minutesAgo * 60), value: $0.value) })
    }

    @Test func temperatureRange() throws {
        let cool = WeatherCondition.temperature(ValueRange(minimum: 5, maximum: 15))
        let ok = try report(cool, WeatherSnapshot(temperature: series([(20, 30), (2, 12.5)])))
        #expect(ok.outcome.isSatisfied)
        #expect(ok.summary == "opens when the temperature is between 5 and 15 °C")
        let warm = try report(cool, WeatherSnapshot(temperature: series([(2, 17.24)])))
        #expect(warm.outcome == .notSatisfied(reason: "the temperature is 17.2 °C"))
        // Bounds are inclusive.
        #expect(try report(cool, WeatherSnapshot(temperature: series([(1, 15)]))).outcome.isSatisfied)
    }

    @Test func humidityAndPressureRanges() throws {
        let humid = WeatherCondition.humidity(ValueRange(minimum: 80))
        #expect(try report(humid, WeatherSnapshot(humidity: series([(1, 91)]))).outcome.isSatisfied)
        #expect(try report(humid, WeatherSnapshot(humidity: series([(1, 45)]))).outcome == .notSatisfied(reason: "the humidity is 45 %"))
        let low = WeatherCondition.pressure(ValueRange(maximum: 1000))
        #expect(try report(low, WeatherSnapshot(pressure: series([(1, 990.4)]))).outcome.isSatisfied)
        #expect(try report(low, WeatherSnapshot(pressure: series([(1, 1013.25)]))).outcome == .notSatisfied(reason: "the pressure is 1013.3 hPa"))
    }

    @Test func missingOrStaleSensorsAreUnknown() throws {
        let cool = WeatherCondition.temperature(ValueRange(maximum: 15))
        #expect(try report(cool, .none).outcome == .unknown(reason: "no temperature sensor on this box"))
        #expect(try report(cool, WeatherSnapshot(temperature: SensorSeries([]))).outcome == .unknown(reason: "no temperature reading yet"))
        #expect(try report(cool, WeatherSnapshot(temperature: series([(25, 10)]))).outcome == .unknown(reason: "the last temperature reading is 25 min old"))
        // A glitching sensor (NaN) reads as missing, never as a value.
        #expect(try report(cool, WeatherSnapshot(temperature: series([(1, .nan)]))).outcome == .unknown(reason: "no temperature reading yet"))
        #expect(try report(.humidity(ValueRange(minimum: 1)), .none).outcome == .unknown(reason: "no humidity sensor on this box"))
    }

    @Test func pressureTrend() throws {
        let falling = WeatherCondition.pressureTrend(PressureTrendCondition(trend: .falling, hours: 3))
        let dropping = series([(185, 1015.0), (180, 1014.8), (90, 1013.0), (1, 1012.0)])
        let ok = try report(falling, WeatherSnapshot(pressure: dropping))
        #expect(ok.outcome.isSatisfied)
        #expect(ok.summary == "opens when the pressure is falling over the last 3 h")
        let steady = series([(180, 1013.0), (1, 1013.4)])
        #expect(try report(falling, WeatherSnapshot(pressure: steady)).outcome == .notSatisfied(reason: "the pressure is steady (+0.4 hPa in 3 h)"))
        let rising = WeatherCondition.pressureTrend(PressureTrendCondition(trend: .rising, hours: 3))
        #expect(try report(rising, WeatherSnapshot(pressure: series([(181, 1000.0), (1, 1001.5)]))).outcome.isSatisfied)
        #expect(try report(.pressureTrend(PressureTrendCondition(trend: .steady, hours: 3)), WeatherSnapshot(pressure: steady)).outcome.isSatisfied)
    }

    @Test func pressureTrendNeedsEnoughHistory() throws {
        let falling = WeatherCondition.pressureTrend(PressureTrendCondition(trend: .falling, hours: 3))
        let short = series([(80, 1015.0), (1, 1010.0)])
        #expect(try report(falling, WeatherSnapshot(pressure: short)).outcome == .unknown(reason: "pressure history covers 1 h 19 min of the 3 h needed"))
        #expect(try report(falling, .none).outcome == .unknown(reason: "no pressure sensor on this box"))
        let stale = series([(200, 1015.0), (30, 1010.0)])
        #expect(try report(falling, WeatherSnapshot(pressure: stale)).outcome == .unknown(reason: "the last pressure reading is 30 min old"))
    }

    @Test func rainInTheLastMinutes() throws {
        let rain = WeatherCondition.rain(RainCondition(withinMinutes: 30))
        let since = now.addingTimeInterval(-7_200)
        let wet = RainGaugeHistory(listeningSince: since, tips: [now.addingTimeInterval(-600)])
        let ok = try report(rain, WeatherSnapshot(rainGauge: wet))
        #expect(ok.outcome.isSatisfied)
        #expect(ok.summary == "opens when at least 0.28 mm of rain fell in the last 30 min")
        let dry = RainGaugeHistory(listeningSince: since, tips: [now.addingTimeInterval(-1_900)])
        #expect(try report(rain, WeatherSnapshot(rainGauge: dry)).outcome == .notSatisfied(reason: "no rain in the last 30 min"))
        let heavy = WeatherCondition.rain(RainCondition(withinMinutes: 30, minimumMillimetres: 1))
        let drizzle = RainGaugeHistory(listeningSince: since, tips: [now.addingTimeInterval(-60), now.addingTimeInterval(-120)])
        #expect(try report(heavy, WeatherSnapshot(rainGauge: drizzle)).outcome == .notSatisfied(reason: "0.56 mm of rain in the last 30 min"))
        let fourTips = RainGaugeHistory(listeningSince: since, tips: (1...4).map { now.addingTimeInterval(-Double($0) * 60) })
        #expect(try report(heavy, WeatherSnapshot(rainGauge: fourTips)).outcome.isSatisfied)
    }

    @Test func rainGaugeMissingOrJustStartedIsUnknown() throws {
        let rain = WeatherCondition.rain(RainCondition(withinMinutes: 30))
        #expect(try report(rain, .none).outcome == .unknown(reason: "no rain gauge on this box"))
        let fresh = RainGaugeHistory(listeningSince: now.addingTimeInterval(-300), tips: [])
        #expect(try report(rain, WeatherSnapshot(rainGauge: fresh)).outcome == .unknown(reason: "the rain gauge has listened for 5 min of the 30 min needed"))
        // Rain seen since start-up is enough even before the full window passed.
        let freshWet = RainGaugeHistory(listeningSince: now.addingTimeInterval(-300), tips: [now.addingTimeInterval(-100)])
        #expect(try report(rain, WeatherSnapshot(rainGauge: freshWet)).outcome.isSatisfied)
    }

    @Test func invalidWeatherConditionsAreRejected() {
        let bad: [WeatherCondition] = [
            .temperature(ValueRange()), .temperature(ValueRange(minimum: 20, maximum: 10)),
            .humidity(ValueRange(minimum: 120)), .pressure(ValueRange(maximum: .infinity)),
            .pressureTrend(PressureTrendCondition(trend: .rising, hours: 0)),
            .rain(RainCondition(withinMinutes: 0)), .rain(RainCondition(withinMinutes: 10, minimumMillimetres: -1)),
        ]
        for condition in bad {
            #expect(throws: DomainValidationError.self, "\(condition)") { try Condition.weather(condition).validate() }
        }
    }
}
