import Foundation

/// GPS UTC as a `Date`, with GPS week-rollover correction.
///
/// The legacy GPS week number has 10 bits, so a receiver whose firmware's idea of the
/// era is out of date reports dates 1024 weeks (19.6 years) too early after a rollover
/// (1999-08-22, 2019-04-07, next 2038-11-21). Like gpsd's `gpsd_gpstime_resolv`, a date
/// earlier than a floor the box knows to be in the past — its build date — gets 1024
/// weeks added, repeatedly, until it is not. A correct date earlier than the floor (a
/// replayed old capture) is therefore moved too: the floor must be a date the real time
/// cannot be before.
public enum GPSTime {
    /// 1024 weeks, in seconds.
    public static let rolloverInterval: TimeInterval = 1024 * 7 * 86_400

    /// At most this many rollovers are added (a floor centuries away is a programmer error,
    /// not a reason to loop).
    public static let maximumRollovers = 8

    /// The instant a receiver's date and time of day name (UTC), uncorrected.
    public static func date(of time: GNSSTime) -> Date? {
        var components = DateComponents()
        components.year = time.date.year
        components.month = time.date.month
        components.day = time.date.day
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // Validate the day of the month (NMEADate accepts 31 February).
        guard let midnight = calendar.date(from: components),
              calendar.component(.day, from: midnight) == time.date.day else { return nil }
        return midnight.addingTimeInterval(Double(time.timeOfDay.milliseconds) / 1000)
    }

    /// `date` plus as many 1024-week rollovers as bring it to or after `floor`.
    public static func corrected(_ date: Date, floor: Date) -> Date {
        var result = date
        var rollovers = 0
        while result < floor, rollovers < maximumRollovers {
            result += rolloverInterval
            rollovers += 1
        }
        return result
    }

    /// The receiver's time, rollover-corrected against `floor`; `nil` without a valid date.
    public static func corrected(_ time: GNSSTime, floor: Date) -> Date? {
        date(of: time).map { corrected($0, floor: floor) }
    }
}
