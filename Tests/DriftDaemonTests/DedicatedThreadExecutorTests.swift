import Foundation
import Synchronization
import Testing
import TestSupport

@testable import DriftDaemon

/// An actor whose work runs on a ``DedicatedThreadExecutor``.
private actor OnOwnThread {
    nonisolated let executor: DedicatedThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private(set) var calls = 0
    /// Set by ``pass(_:)`` when it leaves the gate (read from outside without a job).
    nonisolated let passed = Mutex(false)

    init(name: String) {
        executor = DedicatedThreadExecutor(name: name)
    }

    /// Counts the call; answers the thread it ran on and that thread's name.
    func call() throws -> (thread: Int, name: String?) {
        calls += 1
        let thread = try OSThreads.currentID()
        return (thread, OSThreads.name(of: thread))
    }

    /// Blocks its thread at `gate` (a job still running when the executor is stopped).
    func pass(_ gate: ThreadGate) {
        gate.pass()
        passed.withLock { $0 = true }
    }
}

@Suite("DedicatedThreadExecutor: stop, join, late jobs")
struct DedicatedThreadExecutorTests {
    @Test("stopAndJoin waits for the job in progress, then the thread ends", .timeLimit(.minutes(1)))
    func joinWaitsForRunningJob() async throws {
        let actor = OnOwnThread(name: "exec-join")
        let (thread, name) = try await actor.call()
        #expect(name == "exec-join")
        let gate = ThreadGate()
        let running = Task { await actor.pass(gate) }
        await gate.waitForArrivals(1)
        let joined = Task { await actor.executor.stopAndJoin() }
        gate.open()
        await joined.value
        #expect(actor.passed.withLock { $0 }, "join returned while a job still ran")
        await running.value
        #expect(await OSThreads.waitUntilGone(thread))
    }

    @Test("a job enqueued after the thread ended still runs, on a thread that ends again", .timeLimit(.minutes(1)))
    func lateJobRuns() async throws {
        let actor = OnOwnThread(name: "exec-late")
        let first = try await actor.call().thread
        await actor.executor.stopAndJoin()
        #expect(await OSThreads.waitUntilGone(first))
        // Lost, this call would never return (the time limit fails the test).
        let (late, name) = try await actor.call()
        #expect(late != first)
        #expect(name == "exec-late")
        #expect(await actor.calls == 2)
        await actor.executor.join()
        #expect(await OSThreads.waitUntilGone(late))
    }

    @Test("many calls racing a stop all return", .timeLimit(.minutes(1)))
    func callsRacingStop() async throws {
        let actor = OnOwnThread(name: "exec-race")
        try await withThrowingTaskGroup(of: (thread: Int, name: String?).self) { group in
            for index in 0..<200 {
                if index == 100 { actor.executor.stop() }
                group.addTask { try await actor.call() }
            }
            try await group.waitForAll()
        }
        #expect(await actor.calls == 200)
        await actor.executor.join()
    }
}
