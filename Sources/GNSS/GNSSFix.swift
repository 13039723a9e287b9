/// One receiver cycle's fix, as gpsd reports it in a `TPV`.
///
/// Every field is optional except mode and status: a field is present only when a
/// sentence of this cycle gave it.
public struct GNSSFix: Sendable, Equatable {
    /// gpsd's fix mode.
    public enum Mode: Int, Sendable, Comparable {
        case notSeen = 0, noFix = 1, twoD = 2, threeD = 3
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// gpsd's fix status (`STATUS_*` values in its JSON).
    public enum Status: Int, Sendable {
        case unknown = 0, gps = 1, dgps = 2, rtkFixed = 3, rtkFloat = 4, deadReckoning = 5
        case gnssDeadReckoning = 6, timeOnly = 7, simulated = 8, ppsFix = 9
    }

    public var mode: Mode = .notSeen
    public var status: Status = .unknown
    /// UTC time of the fix; only once the receiver has given a date.
    public var time: GNSSTime?
    /// Degrees, north positive.
    public var latitude: Double?
    /// Degrees, east positive.
    public var longitude: Double?
    /// Metres above mean sea level.
    public var altitudeMSL: Double?
    /// Geoid separation (HAE − MSL) in metres, as the receiver gave it.
    public var geoidSeparation: Double?
    /// Speed over ground in m/s.
    public var speed: Double?
    /// Course over ground, degrees true.
    public var track: Double?
    /// Course over ground, degrees magnetic.
    public var magneticTrack: Double?
    /// Magnetic variation, degrees, east positive, as the receiver gave it.
    public var magneticVariation: Double?
    /// Age of the differential corrections in seconds.
    public var dgpsAge: Double?
    /// Differential reference station id.
    public var dgpsStation: Int?

    public init() {}

    /// Height above the ellipsoid: MSL altitude plus geoid separation, when both are known.
    public var altitudeHAE: Double? {
        guard let altitudeMSL, let geoidSeparation else { return nil }
        return altitudeMSL + geoidSeparation
    }
}

/// A UTC date and time of day as the receiver reported them (no rollover correction).
public struct GNSSTime: Sendable, Hashable, CustomStringConvertible {
    public var date: NMEADate
    public var timeOfDay: NMEATimeOfDay

    public init(date: NMEADate, timeOfDay: NMEATimeOfDay) {
        self.date = date
        self.timeOfDay = timeOfDay
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ`, gpsd's format.
    public var iso8601: String { "\(date)T\(timeOfDay)Z" }
    public var description: String { iso8601 }
}
