@testable import DriftDaemon
import DriftSystem
import Logging
import Synchronization
import Testing

/// When the daemon gives memory back (``MemoryTrimSchedule``, ``MemoryTrimJob``), on given
/// durations since start and given resident sizes.
@Suite("Memory trim")
struct MemoryTrimTests {
    static let megabyte = 1 << 20

    @Test("the first trim comes once the box has settled, not before")
    func first() {
        var schedule = MemoryTrimSchedule(firstAfter: .seconds(60))
        #expect(!schedule.shouldTrim(elapsed: .seconds(0)) { Issue.record("read early"); return nil })
        #expect(!schedule.shouldTrim(elapsed: .seconds(59)) { nil })
        #expect(schedule.shouldTrim(elapsed: .seconds(60)) { nil })
        schedule.trimmed(elapsed: .seconds(60))
        #expect(schedule.trims == 1 && schedule.nextCheck == .seconds(3_660))
    }

    @Test("later trims only when memory grew by the regrowth over where it settled after the last")
    func regrowth() {
        var schedule = MemoryTrimSchedule(firstAfter: .seconds(60), checkEvery: .seconds(3_600), regrowthBytes: 4 * Self.megabyte)
        #expect(schedule.shouldTrim(elapsed: .seconds(60)) { 24 * Self.megabyte })
        schedule.trimmed(elapsed: .seconds(60))
        // Within the hour nothing is read.
        #expect(!schedule.shouldTrim(elapsed: .seconds(3_000)) { Issue.record("read early"); return nil })
        // The first look after the trim is the settled level.
        #expect(!schedule.shouldTrim(elapsed: .seconds(3_660)) { 17 * Self.megabyte })
        #expect(schedule.settledResident == 17 * Self.megabyte)
        // Grown by less than 4 MB: no trim; by 4 MB: trim.
        #expect(!schedule.shouldTrim(elapsed: .seconds(7_260)) { 20 * Self.megabyte })
        #expect(schedule.shouldTrim(elapsed: .seconds(10_860)) { 21 * Self.megabyte })
        schedule.trimmed(elapsed: .seconds(10_860))
        #expect(schedule.settledResident == nil && schedule.trims == 2)
        // An unreadable size trims nothing.
        #expect(!schedule.shouldTrim(elapsed: .seconds(14_460)) { nil })
    }

    @Test("the job trims once at settle, and a failing trim is not retried every tick")
    func job() throws {
        struct Failed: Error {}
        let time = Mutex(Duration.seconds(500))
        let calls = Mutex(0)
        let fails = Mutex(true)
        let report = ResidentMemory.TrimReport(residentBefore: 24 * Self.megabyte, residentAfter: 10 * Self.megabyte, mappings: 3,
                                               unmappedKiB: 14 * 1024, heapReleased: true)
        let job = MemoryTrimJob(logger: Logger(label: "test"), now: { time.withLock { $0 } }, resident: { 20 * Self.megabyte },
                                trim: {
                                    calls.withLock { $0 += 1 }
                                    if fails.withLock({ $0 }) { throw Failed() }
                                    return report
                                })
        for tick in 0..<2 {
            time.withLock { $0 = .seconds(500 + 30 * tick) }
            try job.run()
        }
        #expect(calls.withLock { $0 } == 0)
        time.withLock { $0 = .seconds(560) }
        #expect(throws: Failed.self) { try job.run() }
        time.withLock { $0 = .seconds(590) }
        try job.run()
        #expect(calls.withLock { $0 } == 1 && job.current.trims == 1)
        // The next trim needs a settled level and then 4 MB more.
        fails.withLock { $0 = false }
        time.withLock { $0 = .seconds(560 + 3_600) }
        try job.run()
        time.withLock { $0 = .seconds(560 + 7_200) }
        try job.run()
        #expect(calls.withLock { $0 } == 1)
    }

    @Test("sizes in the log: megabytes to a tenth")
    func megabytes() {
        #expect(MemoryTrimJob.megabytes(17 * Self.megabyte + Self.megabyte / 2) == "17.5")
        #expect(MemoryTrimJob.megabytes(0) == "0.0")
    }
}
