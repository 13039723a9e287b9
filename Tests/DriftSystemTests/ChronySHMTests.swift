import DriftSystem
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("chrony SHM refclock writer")
struct ChronySHMTests {
    /// Reads a field of `struct shmTime` at its offset in the 64-bit Linux layout, as chrony does.
    static func field<T>(_ base: UnsafeRawPointer, _ offset: Int, _: T.Type) -> T {
        base.loadUnaligned(fromByteOffset: offset, as: T.self)
    }

    @Test("a sample lands in a real SysV segment in gpsd's struct shmTime layout")
    func writesSample() throws {
        #if arch(x86_64) || arch(arm64)
        let writer = try ChronySHM(key: 0)   // IPC_PRIVATE
        defer { try? writer.remove() }
        let clock = Date(timeIntervalSince1970: 1_800_000_123.25)
        let receive = Date(timeIntervalSince1970: 1_800_000_100.5)
        writer.write(clock: clock, receive: receive, leap: 0, precision: -1)
        writer.write(clock: clock, receive: receive, leap: 0, precision: -1)

        // Attach independently, as chrony would.
        let raw = shmat(writer.segmentID, nil, SHM_RDONLY)
        let base = try #require(raw == UnsafeMutableRawPointer(bitPattern: -1) ? nil : raw)
        defer { shmdt(base) }
        let p = UnsafeRawPointer(base)
        #expect(Self.field(p, 0, Int32.self) == 1, "mode 1")
        #expect(Self.field(p, 4, Int32.self) == 4, "count: two increments per write")
        #expect(Self.field(p, 8, Int64.self) == 1_800_000_123, "clockTimeStampSec")
        #expect(Self.field(p, 16, Int32.self) == 250_000, "clockTimeStampUSec")
        #expect(Self.field(p, 24, Int64.self) == 1_800_000_100, "receiveTimeStampSec")
        #expect(Self.field(p, 32, Int32.self) == 500_000, "receiveTimeStampUSec")
        #expect(Self.field(p, 36, Int32.self) == 0, "leap")
        #expect(Self.field(p, 40, Int32.self) == -1, "precision")
        #expect(Self.field(p, 44, Int32.self) == 3, "nsamples")
        #expect(Self.field(p, 48, Int32.self) == 1, "valid")
        #expect(Self.field(p, 52, UInt32.self) == 250_000_000, "clockTimeStampNSec")
        #expect(Self.field(p, 56, UInt32.self) == 500_000_000, "receiveTimeStampNSec")
        #else
        print("skipped: the offsets checked are those of a 64-bit Linux struct shmTime")
        #endif
    }

    @Test("a unit outside 0…3 is refused")
    func badUnit() {
        #expect(throws: SystemError.self) { try ChronySHM(unit: 7) }
    }

    @Test("a clock the kernel refuses is a SystemError, never a crash (and never changes the clock)")
    func setClockRefused() {
        // A date before 1970 is always refused (EINVAL), or the call is not permitted (EPERM).
        #expect {
            try SystemClock.set(to: Date(timeIntervalSince1970: -1_000_000_000))
        } throws: { error in
            guard let error = error as? SystemError else { return false }
            return error.operation == "clock_settime" && (error.errno == EINVAL || error.errno == EPERM)
        }
    }
}
