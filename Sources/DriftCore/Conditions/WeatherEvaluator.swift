import Foundation

/// Evaluates weather conditions from the box's sensor histories.
enum WeatherEvaluator {
    static func report(_ condition: WeatherCondition, _ context: AmbientContext) -> ConditionReport {
        let weather = context.weather
        switch condition {
        case .temperature(let range):
            return level(kind: .temperature, name: "temperature", unit: "°C", range: range,
                         series: weather.temperature, context)
        case .humidity(let range):
            return level(kind: .humidity, name: "humidity", unit: "%", range: range,
                         series: weather.humidity, context)
        case .pressure(let range):
            return level(kind: .pressure, name: "pressure", unit: "hPa", range: range,
                         series: weather.pressure, context)
        case .pressureTrend(let trend):
            return pressureTrend(trend, series: weather.pressure, context)
        case .rain(let rain):
            return self.rain(rain, gauge: weather.rainGauge, context)
        }
    }

    /// The latest fresh reading of `series`, or why there is none.
    static func freshReading(_ series: SensorSeries?, name: String, _ context: AmbientContext) -> Result<SensorReading, InputProblem> {
        guard let series else { return .failure(InputProblem("no \(name) sensor on this box")) }
        guard let latest = series.latest(atOrBefore: context.now) else {
            return .failure(InputProblem("no \(name) reading yet"))
        }
        let age = context.now.timeIntervalSince(latest.time)
        guard age <= context.limits.maximumReadingAge else {
            return .failure(InputProblem("the last \(name) reading is \(Text.duration(age)) old"))
        }
        return .success(latest)
    }

    /// When `reading` stops counting (``ConditionLimits/maximumReadingAge``): the outcome turns
    /// unknown then unless a newer reading came.
    static func staleAt(_ reading: SensorReading, _ context: AmbientContext) -> Date {
        reading.time.addingTimeInterval(context.limits.maximumReadingAge)
    }

    static func level(kind: ConditionKind, name: String, unit: String, range: ValueRange,
                      series: SensorSeries?, _ context: AmbientContext) -> ConditionReport {
        let summary = "opens when the \(name) is \(range.phrase(unit: unit))"
        switch freshReading(series, name: name, context) {
        case .failure(let problem):
            return ConditionReport(kind: kind, summary: summary, outcome: .unknown(reason: problem.reason))
        case .success(let reading):
            return ConditionReport(
                kind: kind, summary: summary,
                outcome: range.contains(reading.value)
                    ? .satisfied
                    : .notSatisfied(reason: "the \(name) is \(Text.number(reading.value)) \(unit)"),
                recheckAt: staleAt(reading, context))
        }
    }

    static func pressureTrend(_ condition: PressureTrendCondition, series: SensorSeries?, _ context: AmbientContext) -> ConditionReport {
        let period = Double(condition.hours) * 3600
        let summary = "opens when the pressure is \(condition.trend.rawValue) over the last \(Text.duration(period))"
        let latest: SensorReading
        switch freshReading(series, name: "pressure", context) {
        case .failure(let problem):
            return ConditionReport(kind: .pressureTrend, summary: summary, outcome: .unknown(reason: problem.reason))
        case .success(let reading):
            latest = reading
        }
        let target = latest.time.addingTimeInterval(-period)
        let tolerance = max(context.limits.minimumTrendTolerance, period * 0.1)
        guard let series, let past = series.closest(to: target), abs(past.time.timeIntervalSince(target)) <= tolerance else {
            let covered = series?.readings.first.map { latest.time.timeIntervalSince($0.time) } ?? 0
            return ConditionReport(
                kind: .pressureTrend, summary: summary,
                outcome: .unknown(reason: "pressure history covers \(Text.duration(covered)) of the \(Text.duration(period)) needed"))
        }
        let change = latest.value - past.value
        let threshold = context.limits.pressureTrendPerHour * Double(condition.hours)
        let observed: PressureTrend = change >= threshold ? .rising : (change <= -threshold ? .falling : .steady)
        let signed = (change >= 0 ? "+" : "") + Text.number(change)
        return ConditionReport(
            kind: .pressureTrend, summary: summary,
            outcome: observed == condition.trend
                ? .satisfied
                : .notSatisfied(reason: "the pressure is \(observed.rawValue) (\(signed) hPa in \(Text.duration(period)))"),
            recheckAt: staleAt(latest, context))
    }

    static func rain(_ condition: RainCondition, gauge: RainGaugeHistory?, _ context: AmbientContext) -> ConditionReport {
        let window = Double(condition.withinMinutes) * 60
        let summary = "opens when at least \(Text.number(condition.minimumMillimetres, decimals: 2)) mm of rain fell in the last \(Text.duration(window))"
        guard let gauge else {
            return ConditionReport(kind: .rain, summary: summary, outcome: .unknown(reason: "no rain gauge on this box"))
        }
        let fallen = gauge.millimetres(inLast: window, before: context.now)
        if fallen + 1e-9 >= condition.minimumMillimetres {
            // Holds until enough tips have left the window: the earliest tip in it leaving is
            // the first instant the sum can drop (a recheck then is never late, at worst early).
            let oldest = gauge.tips.first { $0 > context.now.addingTimeInterval(-window) && $0 <= context.now }
            return ConditionReport(kind: .rain, summary: summary, outcome: .satisfied,
                                   recheckAt: oldest.map { $0.addingTimeInterval(window) })
        }
        let listened = context.now.timeIntervalSince(gauge.listeningSince)
        if listened < window {
            return ConditionReport(
                kind: .rain, summary: summary,
                outcome: .unknown(reason: "the rain gauge has listened for \(Text.duration(listened)) of the \(Text.duration(window)) needed"),
                recheckAt: gauge.listeningSince.addingTimeInterval(window))
        }
        let amount = fallen == 0 ? "no rain" : "\(Text.number(fallen, decimals: 2)) mm of rain"
        return ConditionReport(kind: .rain, summary: summary,
                               outcome: .notSatisfied(reason: "\(amount) in the last \(Text.duration(window))"))
    }
}
