import Foundation

/// Runs a blocking call (poll, a synchronous socket client) on a thread of its
/// own, off both the cooperative pool and Dispatch's worker pool.
///
/// Both pools have about as many threads as cores. Blocking the cooperative
/// pool starves the service under test; blocking Dispatch's workers starves
/// the queues on which ``ReadinessMonitor``'s waits end.
public func runBlocking<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Swift.Result { try body() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
