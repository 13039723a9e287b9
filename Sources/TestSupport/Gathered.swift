import Synchronization

/// What a background task gathered from a stream, for a test to look at while it runs.
public final class Gathered<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    public init() {}

    /// Appends every element of `stream` until it ends.
    public func gather(_ stream: AsyncStream<Element>) async {
        for await element in stream { items.withLock { $0.append(element) } }
    }

    public var all: [Element] { items.withLock { $0 } }

    public var count: Int { items.withLock { $0.count } }
}
