import Dispatch
@testable import DriftSystem
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite("Wait recheck: the monitors' safety net for a lost dispatch source")
struct WaitRecheckTests {
    private static func at(_ seconds: Double) -> DispatchTime {
        DispatchTime(uptimeNanoseconds: 1_000_000_000_000 + UInt64(seconds * 1_000_000_000))
    }

    @Test("on a manual clock: checks come an interval after arming, then every interval; one timer at a time")
    func schedule() {
        var recheck = WaitRecheck(interval: .seconds(5))
        #expect(recheck.armed(timeout: nil, now: Self.at(0)) == Self.at(5))
        var polls = 0
        // Not ready: again an interval later.
        #expect(recheck.due(now: Self.at(5), ready: { polls += 1; return false }) == .again(Self.at(10)))
        // The wait ended, a new one armed at 8 s while the timer for 10 s is pending: no second timer.
        recheck.ended()
        #expect(recheck.armed(timeout: nil, now: Self.at(8)) == nil)
        // At 10 s that wait is 2 s old: no poll yet, the check moves to 13 s.
        #expect(recheck.due(now: Self.at(10), ready: { polls += 1; return true }) == .again(Self.at(13)))
        #expect(polls == 1)
        let before = WaitRecheck.rescuedWaits
        #expect(recheck.due(now: Self.at(13), ready: { polls += 1; return true }) == .rescue)
        #expect(polls == 2)
        #expect(WaitRecheck.rescuedWaits >= before + 1)
        // After a rescue nothing is pending: the next long wait gets its own timer.
        recheck.ended()
        #expect(recheck.armed(timeout: nil, now: Self.at(20)) == Self.at(25))
        // A timer that finds no wait stops.
        recheck.ended()
        #expect(recheck.due(now: Self.at(25), ready: { polls += 1; return true }) == .idle)
        #expect(polls == 2)
    }

    @Test("a wait whose own timeout comes within the interval needs no timer")
    func shortWaits() {
        var recheck = WaitRecheck(interval: .seconds(5))
        #expect(recheck.armed(timeout: .seconds(5), now: Self.at(0)) == nil)
        #expect(recheck.armed(timeout: .milliseconds(200), now: Self.at(1)) == nil)
        #expect(recheck.armed(timeout: .seconds(6), now: Self.at(2)) == Self.at(7))
    }

    /// libdispatch keeps the old source filed under the descriptor number: a descriptor put in
    /// its place with `dup2` (closed and reused in one step) gets sources that never fire. A
    /// wait with no timeout on it must still end once the byte is there.
    @Test("a wait with no timeout whose dispatch source never fires ends at the next recheck")
    func lostSourceRescued() async throws {
        let (oldReader, oldWriter) = try FileDescriptor.pipe()
        let oldQueue = DispatchQueue(label: "test.lost-source")
        let oldSource = DispatchSource.makeReadSource(fileDescriptor: oldReader.rawValue, queue: oldQueue)
        let oldCancelled = DispatchSemaphore(value: 0)
        oldSource.setEventHandler {}
        oldSource.setCancelHandler { oldCancelled.signal() }
        oldSource.activate()
        // The old source's registration is made on libdispatch's thread: await it in the kernel's list.
        #expect(try await Self.eventually { EpollRegistrations.current().contains(oldReader.rawValue) })

        let (reader, writer) = try FileDescriptor.pipe()
        #expect(dup2(reader.rawValue, oldReader.rawValue) == oldReader.rawValue)
        try reader.close()
        let number = oldReader  // now the new pipe's read end
        defer {
            oldSource.cancel()
            oldCancelled.wait()
            try? number.close(); try? oldWriter.close(); try? writer.close()
        }

        let before = ReadinessMonitor.rescuedWaits
        let monitor = ReadinessMonitor(descriptor: number, recheckInterval: .milliseconds(100))
        defer { monitor.close() }
        var rescued = false
        for _ in 0..<10 where !rescued {
            // Whether the wait armed its (dead) source before the byte came cannot be seen from
            // here; if it had not, its first poll answers and nothing is rescued: try again.
            let woke = try await withinTimeLimit(.seconds(30)) {
                async let readable = monitor.readable()
                try await Task.sleep(for: .milliseconds(100))
                try writer.writeAll([7])
                return try await readable
            }
            #expect(woke == true, "a wait on a lost source hung")
            var byte: [UInt8] = [0]
            _ = try byte.withUnsafeMutableBytes { try number.read(into: $0) }
            rescued = ReadinessMonitor.rescuedWaits > before
        }
        #expect(rescued)
    }

    private static func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
