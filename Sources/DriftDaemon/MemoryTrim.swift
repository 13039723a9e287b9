import DriftSystem
import Logging
import Synchronization

/// When the daemon gives memory back (``ResidentMemory/trim()``): once the box has settled
/// after start — the start-up code has run and will not run again — and later whenever its
/// resident memory has grown by ``regrowthBytes`` over the level it settled at after the last
/// trim (a festival's heap, the visitor page's code after a crowd), looked at once per
/// ``checkEvery``. Pure bookkeeping on durations since start, so tests give the instants.
public struct MemoryTrimSchedule: Sendable, Hashable {
    /// The first trim, this long after start (the beacon's stable position stands ~30 s in).
    public var firstAfter: Duration
    /// How often resident memory is looked at after that.
    public var checkEvery: Duration
    /// Growth over the settled level that earns another trim.
    public var regrowthBytes: Int

    /// Where resident memory settled after the last trim (read one check after it); nil until
    /// then, or before the first trim.
    public private(set) var settledResident: Int?
    /// When the next look is due; nil until the first trim.
    public private(set) var nextCheck: Duration?
    public private(set) var trims = 0

    public init(firstAfter: Duration = .seconds(60), checkEvery: Duration = .seconds(3600), regrowthBytes: Int = 4 << 20) {
        self.firstAfter = firstAfter
        self.checkEvery = checkEvery
        self.regrowthBytes = regrowthBytes
    }

    /// Whether to trim now, `elapsed` after start; `resident()` is read only when a check is due.
    public mutating func shouldTrim(elapsed: Duration, resident: () -> Int?) -> Bool {
        guard let due = nextCheck else { return elapsed >= firstAfter }
        guard elapsed >= due else { return false }
        nextCheck = elapsed + checkEvery
        guard let now = resident() else { return false }
        guard let settled = settledResident else {
            // The first look after a trim: what the box maps again while it idles is its level.
            settledResident = now
            return false
        }
        return now >= settled + regrowthBytes
    }

    /// Records a trim done `elapsed` after start.
    public mutating func trimmed(elapsed: Duration) {
        trims += 1
        settledResident = nil
        nextCheck = elapsed + checkEvery
    }
}

/// The housekeeping job that trims by ``MemoryTrimSchedule`` and logs what each trim gave back.
public final class MemoryTrimJob: Sendable {
    private let schedule: Mutex<MemoryTrimSchedule>
    private let started: Duration
    private let now: @Sendable () -> Duration
    private let resident: @Sendable () -> Int?
    private let trim: @Sendable () throws -> ResidentMemory.TrimReport
    private let logger: Logger

    /// - Parameters:
    ///   - now: monotonic time; the job counts from its value at init.
    ///   - resident: the process's resident bytes (``ResidentMemory/residentBytes()``).
    ///   - trim: the trim itself (``ResidentMemory/trim()``).
    public init(schedule: MemoryTrimSchedule = MemoryTrimSchedule(), logger: Logger,
                now: @escaping @Sendable () -> Duration = { MonotonicTime.now() },
                resident: @escaping @Sendable () -> Int? = { ResidentMemory.residentBytes() },
                trim: @escaping @Sendable () throws -> ResidentMemory.TrimReport = { try ResidentMemory.trim() }) {
        self.schedule = Mutex(schedule)
        self.now = now
        self.started = now()
        self.resident = resident
        self.trim = trim
        self.logger = logger
    }

    /// The schedule as it stands (for tests and status).
    public var current: MemoryTrimSchedule { schedule.withLock { $0 } }

    /// One housekeeping tick: trims when the schedule says so.
    public func run() throws {
        let elapsed = now() - started
        // Recorded before the trim: a failing trim is not retried every tick.
        let due = schedule.withLock { schedule in
            guard schedule.shouldTrim(elapsed: elapsed, resident: resident) else { return false }
            schedule.trimmed(elapsed: elapsed)
            return true
        }
        guard due else { return }
        let began = now()
        let report = try trim()
        let took = now() - began
        logger.info("memory trimmed", metadata: [
            "tookMs": "\(took.components.seconds * 1000 + took.components.attoseconds / 1_000_000_000_000_000)",
            "residentBeforeMB": "\(Self.megabytes(report.residentBefore))",
            "residentAfterMB": "\(Self.megabytes(report.residentAfter))",
            "mappings": "\(report.mappings)", "unmappedMB": "\(Self.megabytes(report.unmappedKiB * 1024))",
            "heapReleased": "\(report.heapReleased)",
        ])
    }

    static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + 524_288) / 1_048_576
        return "\(tenths / 10).\(tenths % 10)"
    }
}
