import DriftDaemon
import Synchronization
import TestSupport
import Testing

/// The gate `READY=1` waits behind, on a manual clock: no real time passes in these tests.
@Suite("Start-up gate", .timeLimit(.minutes(1)))
struct StartupGateTests {
    @Test("a gate opened before the wait lets it through without sleeping")
    func openedBefore() async {
        let gate = StartupGate()
        gate.open()
        let clock = ManualClock()
        #expect(await gate.wait(atMost: .seconds(10), clock: clock))
        #expect(clock.sleeperCount == 0)
    }

    @Test("every waiter goes when the gate opens, with no time passing; later waiters go at once")
    func openReleasesAll() async {
        let gate = StartupGate()
        let clock = ManualClock()
        let waiters = (0..<3).map { _ in Task { await gate.wait(atMost: .seconds(10), clock: clock) } }
        await clock.waitForSleepers(3)  // all three waiting, each with its limit
        gate.open()
        for waiter in waiters { #expect(await waiter.value) }
        #expect(clock.now == .init(offset: .zero))
        #expect(clock.sleeperCount == 0, "the limits' sleeps end with the waits")
        #expect(await gate.wait(atMost: .seconds(10), clock: clock))
    }

    @Test("a gate that never opens lets the waiter go at the limit, not before")
    func limit() async {
        let gate = StartupGate()
        let clock = ManualClock()
        let waiter = Task { await gate.wait(atMost: .seconds(10), clock: clock) }
        await clock.waitForSleepers(1)
        #expect(clock.nextDeadline == .init(offset: .seconds(10)))
        clock.advance(by: .seconds(10))
        #expect(await waiter.value == false)
        #expect(!gate.isOpen)
    }

    @Test("a cancelled waiter goes at once, parked or not yet parked; the gate still opens for others")
    func cancellation() async {
        let gate = StartupGate()
        let clock = ManualClock()
        let parked = Task { await gate.wait(atMost: .seconds(600), clock: clock) }
        await clock.waitForSleepers(1)
        parked.cancel()
        #expect(await parked.value == false)
        // Cancelled before it starts: it never parks.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await gate.wait(atMost: .seconds(600), clock: clock)
        }
        #expect(await early.value == false)
        #expect(clock.now == .init(offset: .zero))
        let later = Task { await gate.wait(atMost: .seconds(600), clock: clock) }
        await clock.waitForSleepers(1)
        gate.open()
        #expect(await later.value)
    }
}
