import Foundation

/// Computes sunrise, sunset, civil dawn and civil dusk for a place and a local day,
/// and the current ``SolarPhase``.
///
/// The NOAA algorithm iterated to convergence: the event time is refined with the
/// sun's declination and equation of time at that time, so results agree with the
/// NOAA calculator and the `astral` package to a few seconds at mid latitudes
/// (checked against vectors in `tools/solar/solar-vectors.json`).
/// Pure and allocation-free; safe to call on every tick.
public enum SolarCalculator {
    /// Sun-centre altitude of sunrise/sunset: −(34′ refraction + 16′ semi-diameter).
    public static let horizonAltitude = -0.833
    /// Sun-centre altitude that starts/ends civil twilight.
    public static let civilAltitude = -6.0

    /// The events of the calendar day containing `date` in `timeZone`, at `point`.
    public static func solarDay(containing date: Date, in timeZone: TimeZone, at point: GeoPoint) -> SolarDay {
        let (start, end) = localDayBounds(containing: date, in: timeZone)
        return SolarDay(
            sunrise: event(altitude: horizonAltitude, rising: true, from: start, to: end, at: point),
            sunset: event(altitude: horizonAltitude, rising: false, from: start, to: end, at: point),
            civilDawn: event(altitude: civilAltitude, rising: true, from: start, to: end, at: point),
            civilDusk: event(altitude: civilAltitude, rising: false, from: start, to: end, at: point))
    }

    /// The events of the local calendar day `year`-`month`-`day` in `timeZone`.
    /// Returns `nil` for a date that does not exist.
    public static func solarDay(year: Int, month: Int, day: Int, in timeZone: TimeZone, at point: GeoPoint) -> SolarDay? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: 12)
        guard let noon = calendar.date(from: components),
              calendar.component(.day, from: noon) == day else { return nil }
        return solarDay(containing: noon, in: timeZone, at: point)
    }

    /// Which part of the solar day `date` falls in at `point`.
    public static func phase(at date: Date, for point: GeoPoint) -> SolarPhase {
        let elevation = SolarPosition.elevation(at: date, for: point)
        if elevation > horizonAltitude { return .day }
        if elevation <= civilAltitude { return .night }
        // Twilight: morning while the sun climbs, evening while it sinks.
        let later = SolarPosition.elevation(at: date.addingTimeInterval(60), for: point)
        return later >= elevation ? .civilDawn : .civilDusk
    }

    // MARK: - Internals

    /// The instants of local midnight starting and ending the day that contains `date`.
    static func localDayBounds(containing date: Date, in timeZone: TimeZone) -> (Date, Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let start = calendar.startOfDay(for: date)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        return (start, end)
    }

    /// The crossing of `altitude` in `[start, end)`, or the polar case.
    ///
    /// Solves the event once per UTC day overlapping the local day (the local day
    /// can straddle two UTC days, or three across the date line) and keeps the
    /// first solution inside the local day.
    static func event(altitude: Double, rising: Bool, from start: Date, to end: Date, at point: GeoPoint) -> SunEvent {
        let firstDay = Int((start.timeIntervalSince1970 / 86_400).rounded(.down)) - 1
        let lastDay = Int((end.timeIntervalSince1970 / 86_400).rounded(.down)) + 1
        var found: Date?
        for utcDay in firstDay...lastDay {
            guard let instant = crossing(altitude: altitude, rising: rising, utcDay: utcDay, at: point) else { continue }
            if instant >= start && instant < end, found.map({ instant < $0 }) ?? true {
                found = instant
            }
        }
        if let found { return .at(found) }
        // No crossing inside the day: is the sun above or below all day?
        let middle = Date(timeIntervalSince1970: (start.timeIntervalSince1970 + end.timeIntervalSince1970) / 2)
        let noon = solarNoon(near: middle, longitude: point.longitude)
        return SolarPosition.elevation(at: noon, for: point) > altitude ? .sunAlwaysAbove : .sunAlwaysBelow
    }

    /// The UTC instant of the crossing belonging to UTC day `utcDay` (days since 1970),
    /// or `nil` when the sun does not reach the altitude around that day's solar noon.
    static func crossing(altitude: Double, rising: Bool, utcDay: Int, at point: GeoPoint) -> Date? {
        let dayStart = Double(utcDay) * 86_400
        let lat = point.latitude.radians
        // Start at the day's mean solar noon and refine.
        var minutes = 720 - 4 * point.longitude
        for _ in 0..<6 {
            let sun = SolarPosition(at: Date(timeIntervalSince1970: dayStart + minutes * 60))
            let dec = sun.declination.radians
            let cosH = (sin(altitude.radians) - sin(lat) * sin(dec)) / (cos(lat) * cos(dec))
            guard cosH.isFinite, cosH >= -1, cosH <= 1 else { return nil }
            let hourAngle = acos(cosH).degrees
            let next = 720 - 4 * (point.longitude + (rising ? hourAngle : -hourAngle)) - sun.equationOfTime
            if abs(next - minutes) < 0.01 {
                minutes = next
                break
            }
            minutes = next
        }
        return Date(timeIntervalSince1970: dayStart + minutes * 60)
    }

    /// Local solar noon (sun on the meridian) nearest `date`.
    static func solarNoon(near date: Date, longitude: Double) -> Date {
        let utcDay = (date.timeIntervalSince1970 / 86_400).rounded(.down)
        var best = date
        var bestDistance = Double.infinity
        for offset in [-1.0, 0.0, 1.0] {
            let dayStart = (utcDay + offset) * 86_400
            var minutes = 720 - 4 * longitude
            for _ in 0..<3 {
                minutes = 720 - 4 * longitude - SolarPosition(at: Date(timeIntervalSince1970: dayStart + minutes * 60)).equationOfTime
            }
            let candidate = Date(timeIntervalSince1970: dayStart + minutes * 60)
            let distance = abs(candidate.timeIntervalSince(date))
            if distance < bestDistance {
                best = candidate
                bestDistance = distance
            }
        }
        return best
    }
}
