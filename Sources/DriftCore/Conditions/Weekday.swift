/// A day of the week, ISO numbering (Monday = 1 … Sunday = 7).
public enum Weekday: Int, Sendable, Codable, CaseIterable, Comparable {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    /// From Foundation's Gregorian `weekday` component (Sunday = 1 … Saturday = 7).
    public init(gregorianWeekday: Int) {
        self = Weekday(rawValue: (gregorianWeekday + 5) % 7 + 1) ?? .monday
    }

    public var name: String {
        switch self {
        case .monday: "Monday"
        case .tuesday: "Tuesday"
        case .wednesday: "Wednesday"
        case .thursday: "Thursday"
        case .friday: "Friday"
        case .saturday: "Saturday"
        case .sunday: "Sunday"
        }
    }

    public var shortName: String { String(name.prefix(3)) }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
}
