/// A thread of its own for blocking work — SQLite commits that wait for their fsync, media
/// files written, synced and unlinked — so that it never holds one of the cooperative pool's
/// few threads (two here, four on a Pi), which every route, live socket and service loop share.
///
/// Work runs one piece at a time, in the order it was asked for.
public actor BlockingLane {
    private nonisolated let executor: DedicatedThreadExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public init(name: String) {
        executor = DedicatedThreadExecutor(name: name)
    }

    deinit {
        executor.stop()
    }

    /// Lets the lane's thread end once the work asked for ran, and waits until it has ended
    /// (work asked for later still runs, on a thread that ends again after it).
    public nonisolated func shutdown() async {
        await executor.stopAndJoin()
    }

    /// Runs `body` on the lane's thread and returns its result.
    public func run<T: Sendable>(_ body: @Sendable () throws -> T) rethrows -> T {
        try body()
    }
}
