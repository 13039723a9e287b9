import CDriftSys
@testable import DriftDaemon
import DriftCore
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite("Password hashing pool: own threads, a bounded queue, the stored format unchanged")
struct PasswordHashingPoolTests {
    /// Passes `gate` before each derivation and notes the thread (`pthread_self`) it ran on.
    final class RecordingHasher: PasswordHashing {
        let gate: ThreadGate
        let threads = Mutex<[pthread_t]>([])
        /// The niceness of the thread each derivation ran on (Linux keeps one per thread).
        let niceness = Mutex<[Int32]>([])
        let inner = PasswordHasher(iterations: 1_000)
        var iterations: Int { inner.iterations }

        init(gate: ThreadGate) {
            self.gate = gate
        }

        func hash(_ password: String) throws(DomainValidationError) -> PasswordHash {
            note()
            return try inner.hash(password)
        }

        func verify(_ attempt: String, against stored: PasswordHash) -> Bool {
            note()
            return inner.verify(attempt, against: stored)
        }

        private func note() {
            threads.withLock { $0.append(pthread_self()) }
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(drift_gettid()))
            niceness.withLock { $0.append(nice) }
            gate.pass()
        }
    }

    @Test("hashes and verifies in the format PasswordHasher stores and reads")
    func sameFormat() async throws {
        let pool = PasswordHashingPool(hasher: RecordingHasher(gate: ThreadGate(open: true)), configuration: .init(threads: 2, waiting: 2))
        defer { pool.stop() }
        let hash = try await pool.hash("tide")
        #expect(hash.algorithm == "pbkdf2-sha256" && hash.iterations == 1_000 && hash.salt.count == 16 && hash.derivedKey.count == 32)
        #expect(PasswordHasher(iterations: 5_000).verify("tide", against: hash), "a pool hash is read like any stored one")
        let stored = try PasswordHasher(iterations: 2_000).hash("ebbe")
        #expect(try await pool.verify("ebbe", against: stored))
        #expect(try await pool.verify("flood", against: stored) == false)
        #expect(pool.current == PasswordHashingPool.Statistics(hashed: 1, verified: 2, refused: 0, running: 0, waiting: 0))
        let standIn = pool.standIn
        #expect(standIn.iterations == hash.iterations && standIn.salt.count == hash.salt.count && standIn.derivedKey.count == 32)
        await #expect(throws: DomainValidationError.self) { try await pool.hash("") }
    }

    @Test("derivations run on the pool's own threads: with all of them held, the cooperative pool still runs every task")
    func ownThreads() async throws {
        let gate = ThreadGate()
        let hasher = RecordingHasher(gate: gate)
        let pool = PasswordHashingPool(hasher: hasher, configuration: .init(threads: 2, waiting: 2))
        defer {
            gate.open()
            pool.stop()
        }
        let held = try (0..<4).map { try pool.submitHash("p\($0)") }
        await gate.waitForArrivals(2)
        // More tasks than the cooperative pool has threads, each needing one, finish while both derivations are held.
        let width = ProcessInfo.processInfo.activeProcessorCount * 4
        let finished = await withTaskGroup(of: Int.self) { tasks in
            for index in 0..<width { tasks.addTask { index } }
            return await tasks.reduce(0) { count, _ in count + 1 }
        }
        #expect(finished == width)
        #expect(gate.held == 2 && pool.current.running == 2 && pool.current.waiting == 2)
        gate.open()
        for pending in held { _ = try await pending.value.get() }
        let threads = hasher.threads.withLock { $0 }
        #expect(threads.count == 4 && Set(threads.map { UInt($0) }).count <= 2, "at most two threads derived: \(threads)")
        #expect(gate.releasedByLimit == 0, "the tasks ran only once the held derivations let go")
    }

    @Test("derivations run niced (10 by default) so lists and chat lines take the CPU first; niceness 0 leaves them as the daemon")
    func niced() async throws {
        // The test process's own niceness: a thread may raise its niceness, never lower it unprivileged.
        let own = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(drift_gettid()))
        for (configured, expected) in [(Int32(10), max(10, own)), (0, own)] {
            let hasher = RecordingHasher(gate: ThreadGate(open: true))
            let pool = PasswordHashingPool(hasher: hasher, configuration: .init(threads: 1, waiting: 1, niceness: configured))
            _ = try await pool.hash("pass")
            await pool.stopAndJoin()
            #expect(hasher.niceness.withLock { $0 } == [expected], "niceness \(configured)")
        }
        #expect(PasswordHashingPool.Configuration().niceness == 10)
    }

    @Test("a full queue refuses at once with Busy and counts it; what was taken completes")
    func boundedQueue() async throws {
        let gate = ThreadGate()
        let pool = PasswordHashingPool(hasher: RecordingHasher(gate: gate), configuration: .init(threads: 1, waiting: 2))
        defer {
            gate.open()
            pool.stop()
        }
        let taken = try (0..<3).map { try pool.submitHash("p\($0)") }
        await gate.waitForArrivals(1)
        #expect(pool.current.running == 1 && pool.current.waiting == 2)
        #expect(throws: PasswordHashingPool.Busy.self) { try pool.submitHash("one too many") }
        let busy = try #require(throws: PasswordHashingPool.Busy.self) { try pool.submitVerify("x", against: pool.standIn) }
        #expect(busy.retryAfter >= 1)
        #expect(pool.current.refused == 2)
        gate.open()
        for pending in taken {
            _ = try await pending.value.get()
        }
        #expect(pool.current == PasswordHashingPool.Statistics(hashed: 3, verified: 0, refused: 2, running: 0, waiting: 0))
        #expect(gate.releasedByLimit == 0)
    }

    @Test("the pool's counts are Prometheus gauges")
    func metrics() async throws {
        let gate = ThreadGate()
        let pool = PasswordHashingPool(hasher: RecordingHasher(gate: gate), configuration: .init(threads: 1, waiting: 0))
        defer {
            gate.open()
            pool.stop()
        }
        let held = try pool.submitVerify("x", against: pool.standIn)
        await gate.waitForArrivals(1)
        #expect(throws: PasswordHashingPool.Busy.self) { try pool.submitHash("y") }
        let metrics = BoxMetrics()
        var sources = MetricsTests.sources(faults: [:])
        sources.passwordHashing = { pool.current }
        await metrics.refresh(from: sources, now: Date(timeIntervalSince1970: 1_700_000_100))
        let text = String(decoding: metrics.render(), as: UTF8.self)
        for line in [
            #"driftd_password_hashing_done{kind="hash"} 0.0"#, #"driftd_password_hashing_done{kind="verify"} 0.0"#,
            "driftd_password_hashing_refused 1.0", "driftd_password_hashing_running 1.0", "driftd_password_hashing_waiting 0.0",
        ] {
            #expect(text.contains(line + "\n"), "missing \(line) in:\n\(text)")
        }
        gate.open()
        #expect(await held.value == false)
    }
}
