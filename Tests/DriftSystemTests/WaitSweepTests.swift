import Dispatch
import DriftSystem
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Serialized: the process-wide sweep would end the other test's wait.
@Suite("Wait sweeps: the monitors' safety net for a lost dispatch source", .serialized)
struct WaitSweepTests {
    /// libdispatch keeps the old source filed under the descriptor number: a descriptor put in
    /// its place with `dup2` (closed and reused in one step) gets sources that never fire. A
    /// wait with no timeout on it hangs until a recheck finds the byte there.
    @Test("a wait whose dispatch source never fires is ended by a recheck once its descriptor is ready, not before")
    func lostSourceRescued() async throws {
        let before = ReadinessMonitor.rescuedWaits
        try await LostSource.withDeadDescriptor { number, writer in
            let monitor = ReadinessMonitor(descriptor: number)
            defer { monitor.close() }
            let wait = Task { try await monitor.readable() }
            #expect(try await eventually { monitor.isWaiting })
            // A young wait, or one with nothing to read, is left alone.
            #expect(!monitor.recheckWait(olderThan: .seconds(3600)))
            #expect(!monitor.recheckWait(olderThan: .zero))
            try writer.writeAll([7])
            // The source is not in the kernel's epoll set: nothing will wake this wait.
            #expect(!EpollRegistrations.current().contains(number.rawValue))
            #expect(monitor.isWaiting)
            #expect(monitor.recheckWait(olderThan: .zero))
            #expect(try await withinTimeLimit(.seconds(30)) { try await wait.value } == true)
            #expect(!monitor.isWaiting)
        }
        #expect(ReadinessMonitor.rescuedWaits > before)
    }

    @Test("the process-wide sweep reaches every monitor's wait, and leaves young ones alone")
    func sweep() async throws {
        try await LostSource.withDeadDescriptor { number, writer in
            let monitor = ReadinessMonitor(descriptor: number)
            defer { monitor.close() }
            let wait = Task { try await monitor.readable() }
            #expect(try await eventually { monitor.isWaiting })
            try writer.writeAll([7])
            // No wait in this process is an hour old.
            #expect(ReadinessMonitor.recheckWaits(olderThan: .seconds(3600)) == 0)
            #expect(monitor.isWaiting)
            #expect(ReadinessMonitor.recheckWaits(olderThan: .zero) >= 1)
            #expect(try await withinTimeLimit(.seconds(30)) { try await wait.value } == true)
        }
    }
}

/// A descriptor number libdispatch still files under a live source of the file it had before.
enum LostSource {
    static func withDeadDescriptor(_ body: (FileDescriptor, FileDescriptor) async throws -> Void) async throws {
        let (oldReader, oldWriter) = try FileDescriptor.pipe()
        let oldQueue = DispatchQueue(label: "test.lost-source")
        let oldSource = DispatchSource.makeReadSource(fileDescriptor: oldReader.rawValue, queue: oldQueue)
        let oldCancelled = DispatchSemaphore(value: 0)
        oldSource.setEventHandler {}
        oldSource.setCancelHandler { oldCancelled.signal() }
        // The old source is registered on libdispatch's thread: await its registration handler.
        await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
            oldSource.setRegistrationHandler { registered.resume() }
            oldSource.activate()
        }
        #expect(EpollRegistrations.current().contains(oldReader.rawValue))
        let (reader, writer) = try FileDescriptor.pipe()
        #expect(dup2(reader.rawValue, oldReader.rawValue) == oldReader.rawValue)
        try reader.close()
        // `oldReader`'s number now reads the new pipe.
        defer {
            oldSource.cancel()
            oldCancelled.wait()
            try? oldReader.close(); try? oldWriter.close(); try? writer.close()
        }
        try await body(oldReader, writer)
    }
}
