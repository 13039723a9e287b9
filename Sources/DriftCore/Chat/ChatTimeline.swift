import Foundation

/// One page of chat lines, oldest first, and the cursor for the page before it.
public struct ChatPage: Sendable, Equatable {
    public var messages: [ChatMessage]
    /// Pass to get older lines; `nil` when this page reaches the first line.
    public var olderCursor: ChatCursor?
}

/// Ordering and paging of chat lines (the in-memory reference the store's SQL must match).
public enum ChatTimeline {
    /// Default and maximum page size.
    public static let pageSize = 50

    /// Lines sorted by server time, then id.
    public static func ordered(_ messages: [ChatMessage]) -> [ChatMessage] {
        messages.sorted { $0.orderKey < $1.orderKey }
    }

    /// The newest `limit` lines (when `before` is nil), or the `limit` lines just before `before`.
    public static func page(_ messages: [ChatMessage], before: ChatCursor? = nil, limit: Int = pageSize) -> ChatPage {
        let size = min(max(1, limit), pageSize)
        var older = ordered(messages)
        if let before { older = older.filter { $0.orderKey < before } }
        let page = Array(older.suffix(size))
        let hasMore = older.count > page.count
        return ChatPage(messages: page, olderCursor: hasMore ? page.first?.orderKey : nil)
    }
}

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
