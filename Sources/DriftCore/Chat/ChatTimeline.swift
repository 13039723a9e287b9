import Foundation

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
