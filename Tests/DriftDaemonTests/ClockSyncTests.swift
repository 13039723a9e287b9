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
        let service = ClockSyncService(ambient: ambient, logger: Logger(label: "test"), interval: .milliseconds(20)) {
            state.withLock { $0 }
        }
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let first = await collect(1, from: inputs, timeout: .seconds(10))
            #expect(first == [.clockSynchronized(false)])
            state.withLock { $0 = true }
            let second = await collect(1, from: inputs, timeout: .seconds(10))
            #expect(second == [.clockSynchronized(true)])
            // A kernel that will not say counts as synchronised: no change, no input.
            state.withLock { $0 = nil }
            #expect(await collect(1, from: inputs, timeout: .milliseconds(200)).isEmpty)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
