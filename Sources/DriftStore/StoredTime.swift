import Foundation

/// How the store keeps instants: whole milliseconds since 1970 in `INTEGER` columns.
///
/// The conversion matches DriftCore's (`ChatCursor`, `ChatMessage.sentAt`), so a chat
/// cursor and a stored `sentAt` compare exactly. Instants round-trip through the store
/// truncated to the millisecond; ``BottleStore`` returns what it stored.
enum StoredTime {
    /// Whole milliseconds since 1970 (a microsecond of slack absorbs binary rounding).
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000 + 0.001).rounded(.down))
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `date` as the store will give it back.
    static func normalised(_ date: Date) -> Date {
        self.date(milliseconds(date))
    }
}
