#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The `Date` header of a response (RFC 9110 §5.6.7, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`),
/// formatted when a response asks for it and kept for the rest of that second.
///
/// Hummingbird's application formats it ahead of time on a timer once a second, which wakes an
/// idle box for nothing; this costs one comparison per response and one formatting per second
/// with traffic.
final class HTTPDate: Sendable {
    private let cache = Mutex<(second: Int, text: String)>((.min, ""))
    private let seconds: @Sendable () -> Int

    /// - Parameter seconds: the wall clock's seconds since 1970 (tests inject a fixed value).
    init(seconds: @escaping @Sendable () -> Int = { Int(time(nil)) }) {
        self.seconds = seconds
    }

    /// The header's value for now.
    func now() -> String {
        let second = seconds()
        return cache.withLock { cache in
            if cache.second != second { cache = (second, Self.format(second)) }
            return cache.text
        }
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate of `second` seconds since 1970, in GMT.
    static func format(_ second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(parts.tm_year) + 1900
        let yearText = year < 1000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(yearText) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
