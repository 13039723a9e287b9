import DriftDaemon
import DriftSystem
import Foundation
import GNSS
import Logging
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("GPS time source")
struct GPSTimeSourceTests {
    /// A fix with RMC's date and time as the receiver would give it (before rollover correction).
    static func fix(_ text: String, mode: GNSSFix.Mode = .threeD) -> GNSSFix {
        var fix = GNSSFix()
        fix.mode = mode
        // text: "ddmmyy hhmmss.ss", RMC's fields
        let parts = text.split(separator: " ")
        let date = NMEADate(ddmmyy: parts[0])!
        fix.time = GNSSTime(date: date, timeOfDay: NMEATimeOfDay(parts[1])!)
        return fix
    }

    final class Recorder: Sendable {
        let sets = Mutex<[Date]>([])
        let synchronized: Mutex<Bool?>
        let fails: Bool
        init(synchronized: Bool?, fails: Bool = false) {
            self.synchronized = Mutex(synchronized)
            self.fails = fails
        }
    }

    final class SegmentBox: Sendable {
        let segment = Mutex<ChronySHM?>(nil)
    }

    static func source(_ recorder: Recorder, health: HealthRegistry = HealthRegistry(), chronyUnit: Int? = nil,
                       shm: SegmentBox? = nil) -> GPSTimeSource {
        let floor = Date(timeIntervalSince1970: 1_767_225_600)   // 2026-01-01
        return GPSTimeSource(
            settings: .init(floor: floor, setsClock: true, chronyUnit: chronyUnit), health: health, logger: Logger(label: "test"),
            isSynchronized: { recorder.synchronized.withLock { $0 } },
            setClock: { date throws(SystemError) in
                if recorder.fails { throw SystemError(operation: "clock_settime", errno: EPERM) }
                recorder.sets.withLock { $0.append(date) }
            },
            openSHM: { _ throws(SystemError) in
                let segment = try ChronySHM(key: 0)
                shm?.segment.withLock { $0 = segment }
                return segment
            }
        )
    }

    @Test("an unsynchronised clock is set to rollover-corrected GPS time from a 3D fix, once")
    func setsUnsynchronisedClock() throws {
        let recorder = Recorder(synchronized: false)
        let source = Self.source(recorder)
        let booted = Date(timeIntervalSince1970: 0)   // a box without RTC thinks it is 1970
        source.offer(Self.fix("150327 120000.00", mode: .twoD), receivedAt: booted)
        #expect(recorder.sets.withLock { $0 }.isEmpty, "a 2D fix does not set the clock")
        source.offer(Self.fix("150327 120000.00"), receivedAt: booted)   // 2027-03-15
        let set = try #require(recorder.sets.withLock { $0 }.first)
        #expect(abs(set.timeIntervalSince1970 - 1_805_112_000) < 0.5, "\(set)")
        #expect(source.hasSetClock)
        #expect(source.clockTrusted(kernel: false) == true, "the kernel still says unsynchronised; the clock follows GPS")
        #expect(source.clockTrusted(kernel: nil) == nil)
        // The clock now agrees: no second step.
        source.offer(Self.fix("150327 120001.00"), receivedAt: Date(timeIntervalSince1970: 1_805_112_001.2))
        #expect(recorder.sets.withLock { $0 }.count == 1)
    }

    @Test("a 2015 date (neo-m8n) is moved 1024 weeks past the floor before it is used")
    func rolloverApplied() throws {
        let recorder = Recorder(synchronized: false)
        let source = Self.source(recorder)
        source.offer(Self.fix("180315 171926.00"), receivedAt: Date(timeIntervalSince1970: 0))
        let set = try #require(recorder.sets.withLock { $0 }.first)
        #expect(abs(set.timeIntervalSince1970 - (1_426_699_166 + GPSTime.rolloverInterval)) < 0.5)
    }

    @Test("a synchronised clock (or an unknown state) is left alone")
    func synchronisedLeftAlone() {
        for state in [true, nil] as [Bool?] {
            let recorder = Recorder(synchronized: state)
            Self.source(recorder).offer(Self.fix("150327 120000.00"), receivedAt: Date(timeIntervalSince1970: 0))
            #expect(recorder.sets.withLock { $0 }.isEmpty)
        }
    }

    @Test("without CAP_SYS_TIME: one fault, one attempt, no crash")
    func notPermitted() {
        let recorder = Recorder(synchronized: false, fails: true)
        let health = HealthRegistry()
        let source = Self.source(recorder, health: health)
        source.offer(Self.fix("150327 120000.00"), receivedAt: Date(timeIntervalSince1970: 0))
        source.offer(Self.fix("150327 120001.00"), receivedAt: Date(timeIntervalSince1970: 1))
        #expect(health.evaluate().faults[GPSTimeSource.component]?.contains("clock_settime") == true)
        #expect(!source.hasSetClock)
        #expect(source.clockTrusted(kernel: false) == false, "time conditions stay locked")
    }

    @Test("with chrony_shm, every 3D epoch's GPS time goes to the SHM segment")
    func feedsChrony() throws {
        let recorder = Recorder(synchronized: true)
        let shm = SegmentBox()
        let source = Self.source(recorder, chronyUnit: 0, shm: shm)
        let received = Date(timeIntervalSince1970: 1_805_112_000.3)
        source.offer(Self.fix("150327 120000.00"), receivedAt: received)
        let segment = try #require(shm.segment.withLock { $0 })
        defer { try? segment.remove() }
        let raw = shmat(segment.segmentID, nil, SHM_RDONLY)
        let base = try #require(raw == UnsafeMutableRawPointer(bitPattern: -1) ? nil : raw)
        defer { shmdt(base) }
        #expect(base.loadUnaligned(fromByteOffset: 8, as: Int64.self) == 1_805_112_000, "clock: GPS time")
        #expect(base.loadUnaligned(fromByteOffset: 24, as: Int64.self) == 1_805_112_000, "receive: system time")
        #expect(abs(Int(base.loadUnaligned(fromByteOffset: 56, as: UInt32.self)) - 300_000_000) < 1_000, "receive ns")
        #expect(base.loadUnaligned(fromByteOffset: 48, as: Int32.self) == 1, "valid")
        #expect(recorder.sets.withLock { $0 }.isEmpty, "a synchronised clock is not set")
    }

    @Test("the build date (BuildInfo's YYYY-MM-DD) is the floor, at midnight UTC")
    func buildDateFloor() {
        #expect(GPSTimeSource.floor(buildDate: "2026-11-22") == Date(timeIntervalSince1970: 1_795_305_600))
        #expect(GPSTimeSource.floor(buildDate: "unknown") == nil)
        #expect(GPSTimeSource.floor(buildDate: "2026-02-30") == nil)
    }
}
