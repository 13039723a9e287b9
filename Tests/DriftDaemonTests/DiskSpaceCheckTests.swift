@testable import DriftDaemon
import Logging
import Testing

@Suite("Data partition free space")
struct DiskSpaceCheckTests {
    @Test("below the minimum is a storage fault; above again clears it")
    func faultAndRecovery() {
        let health = HealthRegistry()
        let check = DiskSpaceCheck(path: "/", minimumFreeMB: 64, health: health, logger: Logger(label: "test"))
        check.evaluate(freeMB: 500)
        #expect(health.evaluate().faults.isEmpty)
        check.evaluate(freeMB: 10)
        #expect(health.evaluate().faults[DiskSpaceCheck.component]?.contains("10 MiB free") == true)
        #expect(health.evaluate().isAlive, "a full disk is a fault, not a stalled loop")
        check.evaluate(freeMB: 100)
        #expect(health.evaluate().faults.isEmpty)
    }

    @Test("checks at most once per interval")
    func interval() {
        let health = HealthRegistry()
        let check = DiskSpaceCheck(path: "/nonexistent-drift", minimumFreeMB: 64, health: health, logger: Logger(label: "test"), interval: .seconds(60))
        let start = ContinuousClock.now
        check.run(now: start)
        check.run(now: start + .seconds(30))
        // statvfs on a missing path gives no reading: nothing changes, nothing crashes.
        #expect(health.evaluate().faults.isEmpty)
    }
}
