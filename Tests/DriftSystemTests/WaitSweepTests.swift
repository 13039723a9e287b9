import Dispatch
import DriftSystem
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Serialized: the process-wide sweep would end the other test's wait.
@Suite("Wait sweeps: the monitors' safety net for a lost registration", .serialized)
struct WaitSweepTests {
    /// A descriptor replaced under an armed wait (`dup2`: closed and reused in one step) takes
    /// the wait's registration with it: the kernel drops a registration with its file. The wait,
    /// with no timeout, would hang until a recheck finds the byte there.
    @Test("a wait whose registration never fires is ended by a recheck once its descriptor is ready, not before")
    func lostRegistrationRescued() async throws {
        let before = ReadinessMonitor.rescuedWaits
        try await LostRegistration.withDeafWait { monitor, number, wait, writer in
            // A young wait, or one with nothing to read, is left alone.
            #expect(!monitor.recheckWait(olderThan: .seconds(3600)))
            #expect(!monitor.recheckWait(olderThan: .zero))
            try writer.writeAll([7])
            // Nothing in the kernel's epoll sets watches the descriptor: nothing will wake this
            // wait. Waited for: a child another test is spawning holds a copy of the replaced
            // file until it execs (close-on-exec), and the kernel drops the registration only
            // with the file's last copy — checked at once, that failed 24 times in 150 runs
            // beside `ChildProcessTests` and `stress-ng --cpu 2`, never in 200 without them.
            #expect(try await eventually { !EpollRegistrations.current().contains(number) })
            #expect(monitor.isWaiting)
            #expect(monitor.recheckWait(olderThan: .zero))
            #expect(try await withinTimeLimit(.seconds(30)) { try await wait.value } == true)
            #expect(!monitor.isWaiting)
        }
        #expect(ReadinessMonitor.rescuedWaits > before)
    }

    @Test("the process-wide sweep reaches every monitor's wait, and leaves young ones alone")
    func sweep() async throws {
        try await LostRegistration.withDeafWait { monitor, _, wait, writer in
            try writer.writeAll([7])
            // No wait in this process is an hour old.
            #expect(ReadinessMonitor.recheckWaits(olderThan: .seconds(3600)) == 0)
            #expect(monitor.isWaiting)
            #expect(ReadinessMonitor.recheckWaits(olderThan: .zero) >= 1)
            #expect(try await withinTimeLimit(.seconds(30)) { try await wait.value } == true)
        }
    }
}

/// A monitor whose armed wait lost its registration.
enum LostRegistration {
    /// Arms a wait on a pipe's read end, then puts another pipe's read end in its place with
    /// `dup2`. `body` gets the monitor, the descriptor's number, the waiting task and the new
    /// pipe's write end.
    static func withDeafWait(
        _ body: (ReadinessMonitor, Int32, Task<Bool, any Error>, FileDescriptor) async throws -> Void
    ) async throws {
        let (oldReader, oldWriter) = try FileDescriptor.pipe()
        let (reader, writer) = try FileDescriptor.pipe()
        let monitor = ReadinessMonitor(descriptor: oldReader)
        let wait = Task { try await monitor.readable() }
        defer {
            wait.cancel()
            monitor.close()
            try? oldReader.close(); try? oldWriter.close(); try? writer.close()
        }
        #expect(try await eventually { monitor.isWaiting })
        #expect(EpollRegistrations.current().contains(oldReader.rawValue))
        #expect(dup2(reader.rawValue, oldReader.rawValue) == oldReader.rawValue)
        _ = fcntl(oldReader.rawValue, F_SETFD, FD_CLOEXEC)  // dup2 does not carry close-on-exec over
        try reader.close()
        try await body(monitor, oldReader.rawValue, wait, writer)
    }
}

