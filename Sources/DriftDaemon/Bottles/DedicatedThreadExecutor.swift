import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A serial executor that runs its jobs on one thread of its own.
///
/// ``BottleProcessor`` makes blocking SQLite calls (each acknowledged write waits for
/// an `fsync`, tens of milliseconds on an SD card). On its own thread those waits never
/// hold one of the few cooperative-pool threads that the API, GPS and mesh share.
///
/// ``stop()`` lets the thread end once the jobs queued on it ran (owners call it in `deinit`);
/// ``stopAndJoin()`` also waits until it has ended (a service's shutdown). A job enqueued after
/// the thread ended still runs: it starts a thread that runs it, and whatever queues behind it,
/// and ends again (``join()`` waits for that one too). A job left in the queue would be a
/// continuation never resumed: a task that waits for ever.
///
/// It is a task executor too: a task that prefers it (`Task(executorPreference:)`) runs its
/// nonisolated steps on the same thread, so a loop that waits in the actor for input (the
/// bottle processor's ingest) is woken on this thread alone, with no hop through the pool.
final class DedicatedThreadExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var stopped = false
    /// Whether a thread runs (or is about to run) the jobs; at most one does.
    private var running = true
    /// Waiting in ``join()`` for the thread to end.
    private var joiners: [CheckedContinuation<Void, Never>] = []
    private let name: String

    init(name: String) {
        self.name = name
        startThread()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let restart = !running
        running = true
        condition.unlock()
        // Signalled after the unlock: a thread woken under the lock would at once block on it.
        condition.signal()
        if restart { startThread() }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread end once the queued jobs ran (the owner is going away).
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// Returns once no thread of this executor runs: after ``stop()``, when the thread has
    /// run every queued job and ended. Never call it from a job on this executor (it would
    /// wait for itself).
    func join() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if running {
                joiners.append(continuation)
                condition.unlock()
            } else {
                condition.unlock()
                continuation.resume()
            }
        }
    }

    /// ``stop()``, then ``join()``.
    func stopAndJoin() async {
        stop()
        await join()
    }

    private func startThread() {
        let thread = Thread { [self] in runLoop() }
        thread.stackSize = 4 << 20
        thread.start()
    }

    private func runLoop() {
        // Named from inside: on Linux a name set before start does not reach the OS thread.
        Thread.current.name = name
        ThreadName.setCurrent(name)
        while true {
            condition.lock()
            while jobs.isEmpty, !stopped { condition.wait() }
            if jobs.isEmpty {
                // Decided under the lock that a job enqueued from now on starts a new thread.
                running = false
                let waiting = joiners
                joiners.removeAll()
                condition.unlock()
                for joiner in waiting { joiner.resume() }
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch {
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            }
        }
    }
}
