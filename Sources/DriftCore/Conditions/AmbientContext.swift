import Foundation

/// Everything an ambient condition may look at, captured at one instant.
///
/// The lifecycle processor builds one per evaluation from the clock, the config,
/// the GPS service and the sensor history. Missing inputs are represented as such
/// (no receiver, `nil` series, clock not synchronised) and make the affected
/// conditions *unknown* with a reason, never satisfied.
public struct AmbientContext: Sendable {
    /// The current time (injected).
    public var now: Date
    /// `false` until the box clock is trustworthy (NTP or GPS time); time-based
    /// conditions are unknown until then.
    public var clockSynchronized: Bool
    /// The box's configured time zone.
    public var timeZone: TimeZone
    /// This box, to recognise bottles dropped here.
    public var boxID: BoxID?
    /// GPS receiver state and latest fix.
    public var gps: GPSState
    /// The installer's configured position, used for solar when there is no fix.
    public var configuredPosition: GeoPoint?
    /// Sensor histories.
    public var weather: WeatherSnapshot
    /// Whether the box has a presence button.
    public var hasPresenceButton: Bool
    /// Staleness and quality limits.
    public var limits: ConditionLimits

    public init(now: Date, clockSynchronized: Bool = true, timeZone: TimeZone, boxID: BoxID? = nil,
                gps: GPSState = .absent, configuredPosition: GeoPoint? = nil,
                weather: WeatherSnapshot = .none, hasPresenceButton: Bool = true,
                limits: ConditionLimits = ConditionLimits()) {
        self.now = now
        self.clockSynchronized = clockSynchronized
        self.timeZone = timeZone
        self.boxID = boxID
        self.gps = gps
        self.configuredPosition = configuredPosition
        self.weather = weather
        self.hasPresenceButton = hasPresenceButton
        self.limits = limits
    }

    /// A fix fresh and good enough for position conditions, or why there is none.
    public func goodFix() -> Result<PositionFix, InputProblem> {
        guard gps.receiverPresent else { return .failure(InputProblem("this box has no GPS receiver")) }
        guard let fix = gps.lastFix else {
            if let since = gps.listeningSince {
                return .failure(InputProblem("no GPS fix for \(Text.duration(now.timeIntervalSince(since)))"))
            }
            return .failure(InputProblem("no GPS fix yet"))
        }
        let age = now.timeIntervalSince(fix.time)
        guard age <= limits.maximumFixAge else {
            return .failure(InputProblem("no GPS fix for \(Text.duration(age))"))
        }
        if fix.mode == .twoD {
            guard let hdop = fix.hdop, hdop <= limits.maximumHDOP else {
                let shown = fix.hdop.map { "HDOP \(Text.number($0))" } ?? "no HDOP"
                return .failure(InputProblem(
                    "GPS fix too weak (2D, \(shown); needs 3D or HDOP ≤ \(Text.number(limits.maximumHDOP)))"))
            }
        }
        return .success(fix)
    }

    /// The best known box position for solar calculations: the last fix of any
    /// age or quality (a box does not move), else the configured position.
    public func solarPosition() -> GeoPoint? {
        gps.lastFix?.position ?? configuredPosition
    }
}
