import DriftCore
import Foundation

/// The latest ambient inputs, folded into what ``DriftCore/ConditionEvaluator`` needs.
///
/// Pure value: ``ingest(_:)`` applies one input, ``context(at:settings:)`` builds the
/// ``DriftCore/AmbientContext`` for an evaluation. Sensor histories keep
/// ``historyWindow`` seconds (enough for a 24 h pressure trend) and at most
/// ``maximumReadings`` readings per quantity, so memory stays bounded.
public struct AmbientState: Sendable, Equatable {
    /// How far back sensor histories reach, seconds (default 26 h).
    public var historyWindow: TimeInterval = 26 * 3600
    /// Most readings kept per quantity (and rain tips).
    public var maximumReadings = 20_000

    public private(set) var gps: GPSState
    public private(set) var weather: WeatherSnapshot
    public private(set) var clockSynchronized: Bool

    public init(gps: GPSState = .absent, weather: WeatherSnapshot = .none, clockSynchronized: Bool = true) {
        self.gps = gps
        self.weather = weather
        self.clockSynchronized = clockSynchronized
    }

    /// Applies `input`. Returns `true` when it changed something an ambient condition reads
    /// (a button press does not).
    @discardableResult
    public mutating func ingest(_ input: AmbientInput) -> Bool {
        switch input {
        case .gps(let state):
            gps = state
        case .reading(let quantity, let reading):
            guard reading.value.isFinite else { return false }
            switch quantity {
            case .temperature: weather.temperature = appending(reading, to: weather.temperature)
            case .humidity: weather.humidity = appending(reading, to: weather.humidity)
            case .pressure: weather.pressure = appending(reading, to: weather.pressure)
            }
        case .rainGaugeStarted(let at, let millimetresPerTip):
            let perTip = millimetresPerTip > 0 && millimetresPerTip.isFinite ? millimetresPerTip : RainGaugeHistory.standardMillimetresPerTip
            weather.rainGauge = RainGaugeHistory(listeningSince: at, tips: [], millimetresPerTip: perTip)
        case .rainTip(let at):
            guard let gauge = weather.rainGauge else {
                // A tip from a gauge nobody announced: it has listened since this tip at least.
                weather.rainGauge = RainGaugeHistory(listeningSince: at, tips: [at])
                return true
            }
            let cutoff = at.addingTimeInterval(-historyWindow)
            let tips = (gauge.tips + [at]).filter { $0 >= cutoff }.suffix(maximumReadings)
            weather.rainGauge = RainGaugeHistory(listeningSince: gauge.listeningSince, tips: Array(tips),
                                                 millimetresPerTip: gauge.millimetresPerTip)
        case .weather(let snapshot):
            weather = snapshot
        case .clockSynchronized(let synchronized):
            clockSynchronized = synchronized
        case .buttonPressed, .keepAliveButtonPressed:
            return false
        }
        return true
    }

    /// The evaluation context at `now` for this box.
    public func context(at now: Date, settings: BottleSettings) -> AmbientContext {
        AmbientContext(now: now, clockSynchronized: clockSynchronized, timeZone: settings.timeZone, boxID: settings.boxID,
                       gps: gps, configuredPosition: settings.position, weather: weather,
                       hasPresenceButton: settings.hasPresenceButton, limits: settings.limits)
    }

    /// The box's best position now: a good fix, else the configured position.
    public func position(at now: Date, settings: BottleSettings) -> GeoPoint? {
        if case .success(let fix) = context(at: now, settings: settings).goodFix() { return fix.position }
        return settings.position ?? gps.lastFix?.position
    }

    private func appending(_ reading: SensorReading, to series: SensorSeries?) -> SensorSeries {
        let cutoff = reading.time.addingTimeInterval(-historyWindow)
        let kept = ((series?.readings ?? []) + [reading]).filter { $0.time >= cutoff }
        return SensorSeries(Array(kept.suffix(maximumReadings)))
    }
}
