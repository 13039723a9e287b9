import Foundation

/// A serial executor that runs its jobs on one thread of its own.
///
/// ``BottleProcessor`` makes blocking SQLite calls (each acknowledged write waits for
/// an `fsync`, tens of milliseconds on an SD card). On its own thread those waits never
/// hold one of the few cooperative-pool threads that the API, GPS and mesh share.
final class DedicatedThreadExecutor: SerialExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private let name: String

    init(name: String) {
        self.name = name
        let thread = Thread { [self] in runLoop() }
        thread.stackSize = 4 << 20
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread finish once the queued jobs ran (the owner is going away).
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        // Named from inside: on Linux a name set before start does not reach the OS thread.
        Thread.current.name = name
        while true {
            condition.lock()
            while jobs.isEmpty, !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch {
                job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
    }
}
