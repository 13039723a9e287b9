import DriftSystem
import Foundation
import Synchronization
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The monitors' epoll thread, on real pipes, sockets and pseudo-terminals. Each test has a
/// reactor of its own, so its counts are its own.
@Suite("Epoll reactor: the monitors' own event loop")
struct EpollReactorTests {
    /// What a wake saw: how many times it was called.
    final class Wakes: Sendable {
        private let counts = Mutex<[String: Int]>([:])
        func wake(_ name: String) -> EpollReactor.Wake {
            { self.counts.withLock { $0[name, default: 0] += 1 } }
        }
        func count(_ name: String) -> Int { counts.withLock { $0[name] ?? 0 } }
    }

    /// The registration a descriptor replaced under an armed wait leaves in the kernel, kept
    /// there by a duplicate of the old file: `cancel` cannot delete it any more (the number
    /// names another file now), and its event comes later. libdispatch's registrations carry a
    /// pointer to its bookkeeping, freed by then; here the event carries a tag that is no
    /// longer current, and it is dropped.
    @Test("an event of a registration left behind by a replaced descriptor is dropped and counted, never delivered")
    func staleEventDropped() async throws {
        let reactor = EpollReactor(threadName: "test-epoll")
        let wakes = Wakes()
        let (oldReader, oldWriter) = try FileDescriptor.pipe()
        let keeper = fcntl(oldReader.rawValue, F_DUPFD_CLOEXEC, 0)  // keeps the old file open
        #expect(keeper >= 0)
        let old = reactor.register(oldReader.rawValue, for: .readable, wake: wakes.wake("old"))
        let (reader, writer) = try FileDescriptor.pipe()
        #expect(dup2(reader.rawValue, oldReader.rawValue) == oldReader.rawValue)
        _ = fcntl(oldReader.rawValue, F_SETFD, FD_CLOEXEC)
        try reader.close()
        defer {
            close(keeper)
            try? oldReader.close(); try? oldWriter.close(); try? writer.close()
        }
        #expect(reactor.cancel(old))
        #expect(reactor.watchedDescriptors == 0)
        // A wait on the new pipe under the same number.
        _ = reactor.register(oldReader.rawValue, for: .readable, wake: wakes.wake("new"))
        try oldWriter.writeAll([1])
        #expect(try await eventually { reactor.staleEvents == 1 })
        #expect(wakes.count("old") == 0)
        #expect(wakes.count("new") == 0)
        try writer.writeAll([2])
        #expect(try await eventually { wakes.count("new") == 1 })
        #expect(wakes.count("old") == 0)
        #expect(reactor.staleEvents == 1)
        #expect(reactor.watchedDescriptors == 0)
    }

    /// A serial port waits to read and to write on one descriptor; epoll holds one registration
    /// per descriptor, shared by both waits and armed again for the one left after an event.
    @Test("a read and a write wait share a descriptor: data wakes the reader alone, a hang-up wakes the writer, each once")
    func readAndWriteShareADescriptor() async throws {
        let reactor = EpollReactor(threadName: "test-epoll")
        let wakes = Wakes()
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let near = FileDescriptor(rawValue: pair[0])
        let far = FileDescriptor(rawValue: pair[1])
        var farOpen = true
        defer {
            try? near.close()
            if farOpen { try? far.close() }
        }
        try near.setNonBlocking()
        // Fill the near end's send buffer, so it is not writable.
        _ = try ReadinessMonitorRaceTests.fill(near)
        _ = reactor.register(near.rawValue, for: .readable, wake: wakes.wake("read"))
        let write = reactor.register(near.rawValue, for: .writable, wake: wakes.wake("write"))
        #expect(reactor.watchedDescriptors == 1)
        try far.writeAll([9])
        #expect(try await eventually { wakes.count("read") == 1 })
        // The write wait is still armed, on the same descriptor.
        #expect(reactor.watchedDescriptors == 1)
        #expect(wakes.count("write") == 0)
        try far.close()
        farOpen = false
        #expect(try await eventually { wakes.count("write") == 1 })
        #expect(reactor.watchedDescriptors == 0)
        #expect(!reactor.cancel(write))
        #expect(wakes.count("read") == 1)
        #expect(reactor.staleEvents == 0)
    }

    @Test("a cancelled wait is never woken, and the descriptor leaves the kernel's epoll set")
    func cancelledWaitStaysQuiet() async throws {
        let reactor = EpollReactor(threadName: "test-epoll")
        let wakes = Wakes()
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        let first = reactor.register(reader.rawValue, for: .readable, wake: wakes.wake("first"))
        #expect(EpollRegistrations.current().contains(reader.rawValue))
        #expect(reactor.cancel(first))
        #expect(!EpollRegistrations.current().contains(reader.rawValue))
        // A second wait, to see the byte's event come and go.
        _ = reactor.register(reader.rawValue, for: .readable, wake: wakes.wake("second"))
        try writer.writeAll([1])
        #expect(try await eventually { wakes.count("second") == 1 })
        #expect(wakes.count("first") == 0)
        #expect(!reactor.cancel(first))
    }

    @Test("a descriptor the kernel cannot watch (a regular file) ends the wait at once")
    func regularFileIsReadyAtOnce() throws {
        let reactor = EpollReactor(threadName: "test-epoll")
        let wakes = Wakes()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("drift-epoll-\(UUID().uuidString)").path
        let file = try FileDescriptor.open(path, flags: O_RDWR | O_CREAT)
        defer { try? file.close(); unlink(path) }
        let registration = reactor.register(file.rawValue, for: .readable, wake: wakes.wake("file"))
        #expect(wakes.count("file") == 1)
        #expect(reactor.watchedDescriptors == 0)
        #expect(!reactor.cancel(registration))
    }

    /// The moment libdispatch got wrong: a hang-up on a descriptor with read and write waits,
    /// the waits ending and their monitors closing while the event is being handled. Every
    /// cycle's waits must end (a lost one would hang until its limit), and nothing is left
    /// registered. `DRIFT_HANGUP_CYCLES` sets how many cycles (150 by default; the soak in
    /// docs/testing.md ran 20,000 with `MALLOC_PERTURB_` set).
    @Test("pseudo-terminal hang-ups under churn: every wait on both ends ends, nothing stays registered")
    func hangUpChurn() async throws {
        let cycles = ProcessInfo.processInfo.environment["DRIFT_HANGUP_CYCLES"].flatMap { Int($0) } ?? 150
        for _ in 0..<cycles {
            let pty = try PseudoTerminalPair()
            let slave = try FileDescriptor.open(pty.slavePath, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
            let reading = ReadinessMonitor(descriptor: slave)
            let writing = WritabilityMonitor(descriptor: slave)
            let read = Task { try await reading.readable(timeout: .seconds(20)) }
            #expect(try await eventually { reading.isWaiting })
            // The device side writes a line (the slave is in canonical mode), the port reads
            // it: a wake on the slave.
            try pty.write([0x42, 0x0A])
            #expect(try await read.value)
            var line = [UInt8](repeating: 0, count: 8)
            _ = try line.withUnsafeMutableBytes { try slave.read(into: $0) }
            // Armed again, then the device goes away: a hang-up.
            let hangUp = Task { try await reading.readable(timeout: .seconds(20)) }
            #expect(try await eventually { reading.isWaiting })
            pty.closeMaster()
            #expect(try await hangUp.value)
            // A write wait on a hung-up port ends at once too.
            #expect(try await writing.writable(timeout: .seconds(20)))
            reading.close()
            writing.close()
            #expect(!EpollRegistrations.current().contains(slave.rawValue))
            try slave.close()
        }
    }
}
