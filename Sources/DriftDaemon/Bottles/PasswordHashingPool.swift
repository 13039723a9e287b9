import CDriftSys
import DriftCore
import DriftSystem
import Foundation

/// Runs bottle password hashing (PBKDF2, 0.1–1 s of CPU each) on a few threads of its
/// own, with a bounded queue.
///
/// Hashing on the request path held one of the cooperative pool's few threads (one per
/// core) for the whole derivation, and on ``BottleProcessor``'s thread it held every
/// request that needs the processor; a burst of password drops held other visitors'
/// lists and chats for tens of seconds. Here at most ``Configuration/threads`` keys are
/// derived at once and at most ``Configuration/waiting`` more wait; beyond that a job is
/// refused at once with ``Busy`` (the API answers 503 with `Retry-After`), never queued
/// without bound. Callers await the answer without holding a thread.
///
/// Jobs are submitted synchronously (``submitHash(_:)``, ``submitVerify(_:against:)``),
/// so a caller knows before it suspends whether its job was taken; the async ``hash(_:)``
/// and ``verify(_:against:)`` wrap them.
public final class PasswordHashingPool: @unchecked Sendable {
    /// How many threads hash and how many jobs may wait.
    public struct Configuration: Sendable, Equatable {
        /// Threads deriving keys at once (1–2 by default: the box keeps cores for everything else).
        public var threads: Int
        /// Jobs that may wait for a thread; one more is refused with ``Busy``.
        public var waiting: Int
        /// The threads' niceness (Linux: per thread), above the rest of the daemon's 0: a key
        /// derivation is the box's heaviest single job and nobody watches it happen, so lists,
        /// chat lines and opens take the CPU first and hashing gets what they leave. With both
        /// cores busy (a slow board, a festival) the CFS weights give a nice-10 thread about a
        /// tenth of a nice-0 one's share: a drop with a password waits longer, every other
        /// visitor does not. 0 turns it off.
        public var niceness: Int32

        /// - Parameters:
        ///   - threads: default: one on up to three cores, two on four or more (a Pi 4 or Zero 2 W).
        ///   - waiting: default 8 (with 2 threads at ~1 s a hash on a Pi, a wait of ≤ 5 s).
        ///   - niceness: default 10 (0–19).
        public init(threads: Int = Configuration.defaultThreads, waiting: Int = 8, niceness: Int32 = 10) {
            precondition(threads >= 1 && waiting >= 0, "a hashing pool needs a thread and a queue of zero or more")
            precondition((0...19).contains(niceness), "a hashing pool's niceness is 0–19")
            self.threads = threads
            self.waiting = waiting
            self.niceness = niceness
        }

        public static var defaultThreads: Int {
            min(2, max(1, ProcessInfo.processInfo.activeProcessorCount - 2))
        }
    }

    /// The queue is full: try again in about `retryAfter` seconds.
    public struct Busy: Error, Sendable, Equatable, CustomStringConvertible {
        public var retryAfter: TimeInterval
        public var description: String { "password hashing is busy; retry after \(retryAfter) s" }
    }

    /// Counts since start, and the queue now (for metrics and tests).
    public struct Statistics: Sendable, Equatable {
        /// New passwords hashed.
        public var hashed = 0
        /// Attempts verified.
        public var verified = 0
        /// Jobs refused because the queue was full.
        public var refused = 0
        /// Jobs deriving now.
        public var running = 0
        /// Jobs waiting for a thread now.
        public var waiting = 0
    }

    /// The hasher every job uses.
    public let hasher: any PasswordHashing
    public let configuration: Configuration

    private enum Kind { case hash, verify }
    private struct Job {
        var kind: Kind
        /// Derives, and returns what hands the answer to its waiter.
        var run: @Sendable () -> @Sendable () -> Void
    }

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [Job] = []
    private var statistics = Statistics()
    private var stopped = false
    /// Seconds one job took, smoothed (for `Retry-After`); guarded by `condition`.
    private var averageSeconds: Double = 1
    /// Threads still running; guarded by `condition`.
    private var liveThreads = 0
    /// Waiting in ``stopAndJoin()`` for the last thread to end; guarded by `condition`.
    private var joiners: [CheckedContinuation<Void, Never>] = []

    /// Starts the pool's threads (named `<name>-1`, `<name>-2`…).
    public init(hasher: any PasswordHashing, configuration: Configuration = Configuration(), name: String = "passwords") {
        self.hasher = hasher
        self.configuration = configuration
        liveThreads = configuration.threads
        for index in 1...configuration.threads {
            let thread = Thread { [self] in runLoop(name: "\(name)-\(index)") }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// A stand-in for a hash this pool would make: the same algorithm, iteration count and
    /// sizes (so it validates and encodes to the same length), all zero bytes.
    public var standIn: PasswordHash {
        // Sizes and iteration range are the ones PasswordHash accepts, so this cannot throw.
        try! PasswordHash(iterations: min(max(hasher.iterations, 1), 10_000_000), salt: [UInt8](repeating: 0, count: PasswordHasher.saltLength),
                          derivedKey: [UInt8](repeating: 0, count: 32))
    }

    /// Queues hashing a new password, or refuses at once.
    /// - Throws: ``Busy`` when the queue is full.
    public func submitHash(_ password: String) throws(Busy) -> Pending<Result<PasswordHash, DomainValidationError>> {
        let hasher = self.hasher
        return try submit(.hash) { () -> Result<PasswordHash, DomainValidationError> in
            do throws(DomainValidationError) { return .success(try hasher.hash(password)) } catch { return .failure(error) }
        }
    }

    /// Queues verifying an attempt, or refuses at once.
    /// - Throws: ``Busy`` when the queue is full.
    public func submitVerify(_ attempt: String, against stored: PasswordHash) throws(Busy) -> Pending<Bool> {
        let hasher = self.hasher
        return try submit(.verify) { hasher.verify(attempt, against: stored) }
    }

    /// Hashes a new password on the pool's threads.
    /// - Throws: ``Busy`` when the queue is full; ``DriftCore/DomainValidationError`` for an
    ///   empty or over-long password.
    public func hash(_ password: String) async throws -> PasswordHash {
        try await submitHash(password).value.get()
    }

    /// Verifies an attempt on the pool's threads.
    /// - Throws: ``Busy`` when the queue is full.
    public func verify(_ attempt: String, against stored: PasswordHash) async throws(Busy) -> Bool {
        let pending = try submitVerify(attempt, against: stored)
        return await pending.value
    }

    /// Counts since start and the queue now.
    public var current: Statistics {
        condition.lock()
        defer { condition.unlock() }
        var snapshot = statistics
        snapshot.waiting = jobs.count
        return snapshot
    }

    /// Lets the threads finish once the queued jobs ran (the owner is going away).
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// ``stop()``, then waits until every thread has run the queued jobs and ended (a
    /// service's shutdown).
    public func stopAndJoin() async {
        stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if liveThreads > 0 {
                joiners.append(continuation)
                condition.unlock()
            } else {
                condition.unlock()
                continuation.resume()
            }
        }
    }

    private func submit<Value: Sendable>(_ kind: Kind, _ work: @escaping @Sendable () -> Value) throws(Busy) -> Pending<Value> {
        let pending = Pending<Value>()
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, statistics.running + jobs.count < configuration.threads + configuration.waiting else {
            statistics.refused += 1
            // Everything ahead, spread over the threads, at the recent pace; at least a second.
            let ahead = Double(statistics.running + jobs.count) / Double(configuration.threads)
            throw Busy(retryAfter: max(1, (ahead * averageSeconds).rounded(.up)))
        }
        jobs.append(Job(kind: kind) {
            let value = work()
            return { pending.fulfil(value) }
        })
        condition.signal()
        return pending
    }

    private func runLoop(name: String) {
        // Named from inside: on Linux a name set before start does not reach the OS thread, and
        // Foundation's setter alone loses a race with the starting thread (``ThreadName``).
        Thread.current.name = name
        ThreadName.setCurrent(name)
        if configuration.niceness != 0 {
            // Linux keeps a niceness per thread (the "process" of PRIO_PROCESS is the thread id);
            // raising one's own needs no privilege. A failure leaves the thread at the default.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(drift_gettid()), configuration.niceness)
        }
        while true {
            condition.lock()
            while jobs.isEmpty, !stopped { condition.wait() }
            if jobs.isEmpty {
                liveThreads -= 1
                let waiting = liveThreads == 0 ? joiners : []
                if liveThreads == 0 { joiners.removeAll() }
                condition.unlock()
                for joiner in waiting { joiner.resume() }
                return
            }
            let job = jobs.removeFirst()
            statistics.running += 1
            condition.unlock()

            let started = ContinuousClock.now
            let deliver = job.run()
            let elapsed = ContinuousClock.now - started

            condition.lock()
            statistics.running -= 1
            switch job.kind {
            case .hash: statistics.hashed += 1
            case .verify: statistics.verified += 1
            }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            averageSeconds = 0.8 * averageSeconds + 0.2 * seconds
            condition.unlock()
            // Counted first: whoever hears the answer finds the job in the statistics.
            deliver()
        }
    }
}

/// The answer of a job submitted to a ``PasswordHashingPool``: awaited without holding a thread.
public final class Pending<Value: Sendable>: @unchecked Sendable {
    private enum State {
        case waiting([CheckedContinuation<Value, Never>])
        case done(Value)
    }

    private let lock = NSLock()
    /// Guarded by `lock`.
    private var state = State.waiting([])

    init() {}

    /// The job's answer, once it ran.
    public var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                lock.lock()
                switch state {
                case .done(let value):
                    lock.unlock()
                    continuation.resume(returning: value)
                case .waiting(let waiters):
                    state = .waiting(waiters + [continuation])
                    lock.unlock()
                }
            }
        }
    }

    func fulfil(_ value: Value) {
        lock.lock()
        guard case .waiting(let waiters) = state else {
            lock.unlock()
            return
        }
        state = .done(value)
        lock.unlock()
        for waiter in waiters { waiter.resume(returning: value) }
    }
}
