import DriftSystem
import Foundation
import Testing
import TestSupport

@Suite("Readiness monitor on real pipes")
struct ReadinessMonitorTests {
    @Test("a timed wait ends false once its time has passed, not a nanosecond before; readable once data is written")
    func readableAndTimeout() async throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        let time = ManualWaitTimeouts()
        let monitor = ReadinessMonitor(descriptor: reader, timeouts: time.timeouts)
        defer { monitor.close() }
        async let timedOut = monitor.readable(timeout: .seconds(2))
        await time.waitForScheduled(1)
        time.advance(by: .seconds(2) - .nanoseconds(1))
        #expect(monitor.isWaiting, "the wait ended before its time")
        time.advance(by: .nanoseconds(1))
        #expect(try await timedOut == false)
        #expect(!monitor.isWaiting)
        try writer.writeAll(Array("x".utf8))
        #expect(try await monitor.readable(timeout: .seconds(5)) == true)
        // Still readable while the byte is unread (level triggered), and not spinning in between.
        #expect(try await monitor.readable(timeout: .seconds(5)) == true)
        #expect(time.scheduled == 1, "a wait answered by its first poll arms no timeout")
    }

    @Test("the timeout of a wait that ended does not end the next wait")
    func staleTimeout() async throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        let time = ManualWaitTimeouts()
        let monitor = ReadinessMonitor(descriptor: reader, timeouts: time.timeouts)
        defer { monitor.close() }
        async let first = monitor.readable(timeout: .seconds(2))
        await time.waitForScheduled(1)
        try writer.writeAll([1])
        #expect(try await first == true)
        var byte = [UInt8](repeating: 0, count: 1)
        #expect(try byte.withUnsafeMutableBytes { try reader.read(into: $0) } == 1)
        async let second = monitor.readable(timeout: .seconds(10))
        await time.waitForScheduled(2)
        time.advance(by: .seconds(2))  // the first wait's timeout comes due
        #expect(monitor.isWaiting, "the first wait's timeout ended the second")
        time.advance(by: .seconds(8))
        #expect(try await second == false)
    }

    @Test("a waiter is woken by data written later")
    func wakesLater() async throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        let monitor = ReadinessMonitor(descriptor: reader)
        defer { monitor.close() }
        async let readable = monitor.readable(timeout: .seconds(10))
        #expect(try await eventually { monitor.isWaiting })
        try writer.writeAll([1, 2, 3])
        #expect(try await readable == true)
    }

    @Test("cancelling the waiting task ends the wait with CancellationError")
    func cancellation() async throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        let monitor = ReadinessMonitor(descriptor: reader)
        defer { monitor.close() }
        let task = Task { try await monitor.readable() }
        #expect(try await eventually { monitor.isWaiting })
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("close wakes a waiter; later waits throw")
    func closeWakes() async throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        let monitor = ReadinessMonitor(descriptor: reader)
        let task = Task { try await monitor.readable() }
        #expect(try await eventually { monitor.isWaiting })
        monitor.close()
        await #expect(throws: ReadinessMonitorClosed.self) { try await task.value }
        await #expect(throws: ReadinessMonitorClosed.self) { try await monitor.readable() }
    }

    @Test("a timed write wait on a full pipe ends true once the reader drains it, false at its time, and not on an earlier wait's timeout")
    func writableTimeout() async throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        try writer.setNonBlocking()
        let time = ManualWaitTimeouts()
        let monitor = WritabilityMonitor(descriptor: writer, timeouts: time.timeouts)
        defer { monitor.close() }
        let filled = try ReadinessMonitorRaceTests.fill(writer)
        async let drained = monitor.writable(timeout: .seconds(3))
        await time.waitForScheduled(1)
        try ReadinessMonitorRaceTests.drain(reader, filled)
        #expect(try await drained == true)
        _ = try ReadinessMonitorRaceTests.fill(writer)
        async let timedOut = monitor.writable(timeout: .seconds(10))
        await time.waitForScheduled(2)
        time.advance(by: .seconds(3))  // the first wait's timeout comes due
        #expect(monitor.isWaiting, "the first wait's timeout ended the second")
        time.advance(by: .seconds(7) - .nanoseconds(1))
        #expect(monitor.isWaiting, "the wait ended before its time")
        time.advance(by: .nanoseconds(1))
        #expect(try await timedOut == false)
    }

    @Test("end of file counts as readable (the read then returns 0)")
    func endOfFile() async throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close() }
        let monitor = ReadinessMonitor(descriptor: reader)
        defer { monitor.close() }
        try writer.close()
        #expect(try await monitor.readable(timeout: .seconds(5)) == true)
        var buffer = [UInt8](repeating: 0, count: 8)
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        #expect(count == 0)
    }
}

@Suite("Syscall layer")
struct SyscallTests {
    @Test("a failing open throws SystemError with errno and the path")
    func openFails() {
        do {
            _ = try FileDescriptor.open("/nonexistent/drift", flags: O_RDONLY)
            Issue.record("open succeeded")
        } catch {
            #expect(error.errno == ENOENT)
            #expect(error.subject == "/nonexistent/drift")
            #expect(error.description.contains("No such file"))
        }
    }

    @Test("non-blocking read with nothing available returns nil, not an error")
    func wouldBlock() throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        try reader.setNonBlocking()
        var buffer = [UInt8](repeating: 0, count: 4)
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        #expect(count == nil)
    }

    @Test("writeAll then read round-trips bytes")
    func roundTrip() throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        let bytes = (0...255).map(UInt8.init)
        try writer.writeAll(bytes)
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        #expect(count == 256)
        #expect(Array(buffer.prefix(256)) == bytes)
    }
}

@Suite("Readiness monitor cancellation races")
struct ReadinessMonitorRaceTests {
    @Test("a task cancelled before it waits never hangs", arguments: 0..<50)
    func cancelledEarly(iteration: Int) async throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        let monitor = ReadinessMonitor(descriptor: reader)
        defer { monitor.close() }
        let task = Task { try await monitor.readable() }
        if iteration % 2 == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    /// A descriptor closed under an armed registration and its number reused at once would
    /// leave the new descriptor's waits deaf (a serial port closed at the moment another opened
    /// once did, when the monitors ran on libdispatch, which unregistered on its own threads
    /// some time after `cancel()`). So `close()` returns only once the descriptor is out of
    /// every epoll set: checked here in the kernel's own list, `/proc/self/fdinfo`.
    @Test("close() returns only once the descriptor is out of the kernel's epoll sets", arguments: ["writability", "readiness"])
    func closeUnregisters(monitorKind: String) async throws {
        var stillRegistered = 0
        for _ in 0..<200 {
            let (reader, writer) = try FileDescriptor.pipe()
            if monitorKind == "writability" {
                // The pipe full, so the wait registers; drained, so it fires.
                try writer.setNonBlocking()
                let filled = try Self.fill(writer)
                let monitor = WritabilityMonitor(descriptor: writer)
                async let woke = monitor.writable(timeout: .seconds(5))
                #expect(try await eventually { monitor.isWaiting })
                try Self.drain(reader, filled)
                #expect(try await woke)
                monitor.close()
                if EpollRegistrations.current().contains(writer.rawValue) { stillRegistered += 1 }
            } else {
                let monitor = ReadinessMonitor(descriptor: reader)
                async let woke = monitor.readable(timeout: .seconds(5))
                try writer.writeAll([7])
                #expect(try await woke)
                monitor.close()
                if EpollRegistrations.current().contains(reader.rawValue) { stillRegistered += 1 }
            }
            try reader.close()
            try writer.close()
        }
        #expect(stillRegistered == 0)
    }

    /// Writes into a non-blocking `writer` until it would block; returns how many bytes went in.
    static func fill(_ writer: FileDescriptor) throws -> Int {
        let chunk = [UInt8](repeating: 0x55, count: 4096)
        var total = 0
        while let written = try chunk.withUnsafeBytes({ try writer.write($0) }) {
            total += written
        }
        return total
    }

    /// Reads `count` bytes out of `reader`.
    static func drain(_ reader: FileDescriptor, _ count: Int) throws {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var left = count
        while left > 0 {
            let got = try buffer.withUnsafeMutableBytes { try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0.prefix(min(left, 65_536)))) } ?? 0
            left -= got
        }
    }

    @Test("descriptor numbers reused at once after close still deliver events")
    func reuse() async throws {
        for _ in 0..<30 {
            let (reader, writer) = try FileDescriptor.pipe()
            let time = ManualWaitTimeouts()
            let monitor = ReadinessMonitor(descriptor: reader, timeouts: time.timeouts)
            async let timedOut = monitor.readable(timeout: .seconds(1))
            await time.waitForScheduled(1)
            time.advance(by: .seconds(1))
            #expect(try await timedOut == false)
            async let woke = monitor.readable(timeout: .seconds(5))
            #expect(try await eventually { monitor.isWaiting })
            try writer.writeAll([7])
            #expect(try await woke)
            monitor.close()
            try reader.close()
            try writer.close()
        }
    }
}

/// The descriptors registered in this process's epoll instances, as the kernel lists them
/// (`tfd:` lines of `/proc/self/fdinfo/N` for every `anon_inode:[eventpoll]` descriptor).
enum EpollRegistrations {
    static func current() -> Set<Int32> {
        var registered = Set<Int32>()
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return registered }
        for entry in entries {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                  target == "anon_inode:[eventpoll]",
                  let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(entry)", encoding: .utf8) else { continue }
            for line in info.split(separator: "\n") where line.hasPrefix("tfd:") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count > 1, let descriptor = Int32(fields[1]) { registered.insert(descriptor) }
            }
        }
        return registered
    }
}
