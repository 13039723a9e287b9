/// The first `count` elements of `stream`, or fewer if `timeout` passes first — so a test
/// waiting for events fails instead of hanging when they never come.
public func collect<Element: Sendable>(
    _ count: Int, from stream: AsyncStream<Element>, timeout: Duration
) async -> [Element] {
    await withTaskGroup(of: [Element]?.self) { group in
        group.addTask {
            var received: [Element] = []
            for await element in stream {
                received.append(element)
                if received.count == count { break }
            }
            return received
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? []
    }
}

/// Runs `operation`, or gives up after `limit` and returns `nil`: a bound on how
/// long something may block, so a missed wake-up fails the test instead of hanging it.
public func withinTimeLimit<T: Sendable>(
    _ limit: Duration,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
