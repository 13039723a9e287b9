import Foundation

/// One page of chat lines, oldest first, and the cursor for the page before it.
public struct ChatPage: Sendable, Equatable {
    public var messages: [ChatMessage]
    /// Pass to get older lines; `nil` when this page reaches the first line.
    public var olderCursor: ChatCursor?
}
