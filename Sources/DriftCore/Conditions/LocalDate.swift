import Foundation

/// A calendar day (Gregorian), without time or zone, as used by date-range conditions.
///
/// Interpreted in the box's configured time zone. Ordered chronologically and
/// encoded as `"YYYY-MM-DD"`.
public struct LocalDate: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Validates the date (e.g. rejects 2023-02-29).
    /// - Throws: ``DomainValidationError`` for a day that does not exist or a year outside 2000–2199.
    public init(year: Int, month: Int, day: Int) throws(DomainValidationError) {
        let text = "\(year)-\(month)-\(day)"
        guard (2000...2199).contains(year), (1...12).contains(month), day >= 1,
              day <= LocalDate.daysIn(month: month, year: year) else {
            throw DomainValidationError(field: "date", value: text, problem: "is not a valid calendar date (2000–2199)")
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `"YYYY-MM-DD"`.
    public init(iso text: String) throws(DomainValidationError) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else {
            throw DomainValidationError(field: "date", value: text, problem: "must be YYYY-MM-DD")
        }
        try self.init(year: y, month: m, day: d)
    }

    /// The calendar day of `date` in `zone`.
    public init(_ date: Date, in zone: TimeZone) {
        let parts = Calendar.gregorian(in: zone).dateComponents([.year, .month, .day], from: date)
        year = parts.year ?? 1970
        month = parts.month ?? 1
        day = parts.day ?? 1
    }

    /// The instant this day starts in `zone` (local midnight, or the first instant after a DST gap).
    public func start(in zone: TimeZone) -> Date {
        let calendar = Calendar.gregorian(in: zone)
        let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)) ?? Date(timeIntervalSince1970: 0)
        return calendar.startOfDay(for: noon)
    }

    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do { self = try LocalDate(iso: text) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
