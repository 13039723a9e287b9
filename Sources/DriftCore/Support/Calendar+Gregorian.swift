import Foundation

extension Calendar {
    /// A Gregorian calendar in `zone`.
    static func gregorian(in zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
