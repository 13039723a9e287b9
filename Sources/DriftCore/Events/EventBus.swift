import Foundation

/// Broadcasts ``DriftEvent``s to any number of subscribers (API, LEDs, mesh).
///
/// Each subscriber gets its own `AsyncStream` buffering the newest
/// ``bufferSize`` events (a slow subscriber loses old events rather than
/// blocking the lifecycle processor). Enforces "no event after expiry": once an
/// ``DriftEvent/Kind/expired(reason:)`` event for a bottle went out, later events
/// for that bottle are dropped and counted. Pure Swift concurrency, no I/O.
public actor EventBus {
    public let bufferSize: Int
    private var subscribers: [Int: AsyncStream<DriftEvent>.Continuation] = [:]
    private var nextID = 0
    private var expired = RecentSet<BottleID>(capacity: 10_000)
    /// Events refused because their bottle had already expired.
    public private(set) var droppedAfterExpiry = 0
    private var finished = false

    public init(bufferSize: Int = 256) {
        precondition(bufferSize > 0, "event buffer must hold at least one event")
        self.bufferSize = bufferSize
    }

    /// A new stream of every event published from now on. It ends when the bus
    /// finishes; cancelling the consuming task unsubscribes.
    public func subscribe() -> AsyncStream<DriftEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriftEvent.self, bufferingPolicy: .bufferingNewest(bufferSize))
        guard !finished else {
            continuation.finish()
            return stream
        }
        let id = nextID
        nextID += 1
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task { await self.unsubscribe(id) }
        }
        return stream
    }

    /// Sends `event` to every subscriber.
    /// - Returns: `false` when dropped because its bottle already expired (or the bus finished).
    @discardableResult
    public func publish(_ event: DriftEvent) -> Bool {
        guard !finished, !expired.contains(event.bottle) else {
            droppedAfterExpiry += finished ? 0 : 1
            return false
        }
        if event.isExpiry { expired.insert(event.bottle) }
        for continuation in subscribers.values { continuation.yield(event) }
        return true
    }

    /// Number of live subscriptions.
    public var subscriberCount: Int { subscribers.count }

    /// Ends every stream (daemon shutdown); later publishes are ignored.
    public func finish() {
        finished = true
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }

    private func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }
}
