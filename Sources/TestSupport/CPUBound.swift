import CDriftSys
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs CPU-heavy test work — fuzz loops, every-prefix sweeps, simulations, hashing
/// storms — on one background thread of its own, one piece at a time, at a slightly lower
/// priority than everything else in the test process.
///
/// Swift Testing runs the whole suite at once on the cooperative pool, which has as many
/// threads as the machine has cores (two here). A synchronous test that loops for seconds
/// holds one of those threads the whole time; two of them hold the pool, and every test that
/// waits for real input — a pseudo-terminal, a socket, a child process's READY — stands still
/// behind them until its deadline passes (on a busy machine, 40 s stalls were measured).
/// Spread over a thread each (``runBlocking(_:)``), the same loops take the cores from the
/// waiting tests instead. Here they queue on one lane: the pool stays free, at most one core
/// goes to bulk work, and the scheduler prefers the tests that wait on time.
///
/// The work must not wait on the cooperative pool (it would wait behind the lane's own queue);
/// it is plain synchronous computation.
public func runCPUBound<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        CPUBoundLane.shared.enqueue {
            continuation.resume(with: Swift.Result { try work() })
        }
    }
}

/// The non-throwing form of ``runCPUBound(_:)``.
public func runCPUBound<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        CPUBoundLane.shared.enqueue { continuation.resume(returning: work()) }
    }
}

/// The one background thread behind ``runCPUBound(_:)``: a FIFO of work items.
final class CPUBoundLane: Sendable {
    static let shared = CPUBoundLane()

    /// The lane's niceness relative to the rest of the process (Linux: per thread).
    static let niceness: Int32 = 2

    private let condition = NSCondition()
    private let pending = Mutex<[@Sendable () -> Void]>([])

    private init() {
        let thread = Thread { [self] in
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(drift_gettid()), Self.niceness)
            run()
        }
        thread.name = "cpu-bound"
        thread.stackSize = 8 << 20
        thread.start()
    }

    func enqueue(_ item: @escaping @Sendable () -> Void) {
        condition.lock()
        pending.withLock { $0.append(item) }
        condition.signal()
        condition.unlock()
    }

    private func run() -> Never {
        while true {
            condition.lock()
            var item = pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            while item == nil {
                condition.wait()
                item = pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            }
            condition.unlock()
            item?()
        }
    }
}
