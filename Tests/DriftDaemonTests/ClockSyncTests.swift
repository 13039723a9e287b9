import DriftDaemon
import DriftSystem
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@Suite("Clock synchronisation")
struct ClockSyncTests {
    @Test("the kernel answers adjtimex on this machine")
    func kernelAnswers() {
        #expect(ClockSync.isSynchronized() != nil)
    }

    @Test("changes of the sync state reach the processor, once each")
    func changes() async throws {
        let state = Mutex<Bool?>(false)
        let (inputs, ambient) = AsyncStream<AmbientInput>.makeStream()
        let clock = ManualClock()
        let service = ClockSyncService(ambient: ambient, logger: Logger(label: "test"), interval: .seconds(60), clock: clock) {
            state.withLock { $0 }
        }
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        /// One check a minute later: the service is asleep, the minute passes, it checks and sleeps again.
        func nextCheck() async {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(60))
            await clock.waitForSleepers(1)
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let first = await collect(1, from: inputs, timeout: .seconds(10))
            #expect(first == [.clockSynchronized(false)])
            state.withLock { $0 = true }
            await nextCheck()
            let second = await collect(1, from: inputs, timeout: .seconds(10))
            #expect(second == [.clockSynchronized(true)])
            // A kernel that will not say counts as synchronised: no change, no input.
            state.withLock { $0 = nil }
            await nextCheck()
            // The same state a minute on: nothing either.
            state.withLock { $0 = true }
            await nextCheck()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        // Every check has run and the service has stopped: what it sent is in the stream.
        ambient.finish()
        var rest: [AmbientInput] = []
        for await input in inputs { rest.append(input) }
        #expect(rest.isEmpty, "\(rest)")
    }
}
