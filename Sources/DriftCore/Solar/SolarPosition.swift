import Foundation

/// The sun's apparent position for one instant, from the NOAA solar calculator
/// equations (after Meeus, *Astronomical Algorithms*).
///
/// Good to well under a minute of time for sunrise/sunset between 1900 and 2100;
/// elevations are geometric (refraction is folded into the −0.833° horizon of
/// ``SolarCalculator``).
public struct SolarPosition: Sendable, Equatable {
    /// Declination in degrees.
    public let declination: Double
    /// Equation of time in minutes (apparent minus mean solar time).
    public let equationOfTime: Double

    /// Sun parameters at `date`.
    public init(at date: Date) {
        self.init(julianCentury: SolarPosition.julianCentury(date))
    }

    init(julianCentury t: Double) {
        let l0 = (280.46646 + t * (36000.76983 + t * 0.0003032)).positiveRemainder(360)
        let m = 357.52911 + t * (35999.05029 - 0.0001537 * t)
        let e = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
        let mr = m.radians
        let c = sin(mr) * (1.914602 - t * (0.004817 + 0.000014 * t))
            + sin(2 * mr) * (0.019993 - 0.000101 * t)
            + sin(3 * mr) * 0.000289
        let trueLongitude = l0 + c
        let omega = 125.04 - 1934.136 * t
        let apparentLongitude = trueLongitude - 0.00569 - 0.00478 * sin(omega.radians)
        let meanObliquity = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let obliquity = meanObliquity + 0.00256 * cos(omega.radians)
        declination = asin(sin(obliquity.radians) * sin(apparentLongitude.radians)).degrees
        let y = tan(obliquity.radians / 2) * tan(obliquity.radians / 2)
        let l0r = l0.radians
        let eot = y * sin(2 * l0r) - 2 * e * sin(mr) + 4 * e * y * sin(mr) * cos(2 * l0r)
            - 0.5 * y * y * sin(4 * l0r) - 1.25 * e * e * sin(2 * mr)
        equationOfTime = 4 * eot.degrees
    }

    /// Geometric elevation of the sun's centre above the horizon, degrees, at `date` and `point`.
    public static func elevation(at date: Date, for point: GeoPoint) -> Double {
        let sun = SolarPosition(at: date)
        let hourAngle = sun.hourAngle(at: date, longitude: point.longitude)
        let lat = point.latitude.radians
        let dec = sun.declination.radians
        let cosZenith = sin(lat) * sin(dec) + cos(lat) * cos(dec) * cos(hourAngle.radians)
        return 90 - acos(min(1, max(-1, cosZenith))).degrees
    }

    /// Hour angle in degrees (−180…180, negative before local solar noon).
    func hourAngle(at date: Date, longitude: Double) -> Double {
        let utcMinutes = (date.timeIntervalSince1970 / 60).positiveRemainder(1440)
        let trueSolarTime = (utcMinutes + equationOfTime + 4 * longitude).positiveRemainder(1440)
        return trueSolarTime / 4 - 180
    }

    static func julianCentury(_ date: Date) -> Double {
        let julianDay = date.timeIntervalSince1970 / 86_400 + 2_440_587.5
        return (julianDay - 2_451_545) / 36_525
    }
}
