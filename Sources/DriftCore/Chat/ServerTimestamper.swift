import Foundation

/// Hands out server timestamps that never go backwards within one chat, even when
/// the system clock steps back (NTP or GPS time correction): each stamp is at
/// least 1 ms after the previous one.
public struct ServerTimestamper: Sendable, Equatable, Codable {
    public private(set) var last: Date?

    public init(last: Date? = nil) {
        self.last = last
    }

    /// The stamp for a line received at `now`.
    public mutating func stamp(_ now: Date) -> Date {
        var millis = now.millisecondsSince1970
        if let last, millis <= last.millisecondsSince1970 { millis = last.millisecondsSince1970 + 1 }
        let stamp = Date(timeIntervalSince1970: Double(millis) / 1000)
        last = stamp
        return stamp
    }
}
