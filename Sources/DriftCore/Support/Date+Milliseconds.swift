import Foundation

extension Date {
    /// This instant truncated to whole milliseconds since 1970 (what the store keeps).
    var wholeMilliseconds: Date {
        Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000)
    }

    /// Whole milliseconds since 1970. A microsecond of slack absorbs the binary
    /// rounding of values that were built from whole milliseconds, so the
    /// conversion round-trips.
    var millisecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1000 + 0.001).rounded(.down))
    }
}
