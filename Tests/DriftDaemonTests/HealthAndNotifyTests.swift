@testable import DriftDaemon
import Foundation
import Hardware
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@Suite("Health registry and the systemd watchdog")
struct HealthAndNotifyTests {
    @Test("a loop that stops beating is reported stalled; beating again clears it")
    func stall() {
        let health = HealthRegistry()
        let start = ContinuousClock.now
        health.register("gps", maximumSilence: .seconds(5), at: start)
        health.register("radio", maximumSilence: .seconds(2), at: start)
        #expect(health.evaluate(at: start + .seconds(1)).isAlive)
        health.beat("gps", at: start + .seconds(2))
        let report = health.evaluate(at: start + .seconds(3))
        #expect(report.stalled == ["radio"])
        #expect(!report.isAlive)
        health.beat("radio", at: start + .seconds(3))
        #expect(health.evaluate(at: start + .seconds(4)).isAlive)
        health.beat("radio", at: start + .seconds(6))
        // Exactly at the limit is still alive; just past it is not.
        #expect(health.evaluate(at: start + .seconds(7)).stalled.isEmpty)
        #expect(health.evaluate(at: start + .seconds(7) + .milliseconds(1)).stalled == ["gps"])
        health.unregister("gps")
        #expect(health.evaluate(at: start + .seconds(4)).components == ["radio"])
    }

    @Test("the watchdog's check judges progress between checks: a late loop is alive, a stuck one is stalled after its silence")
    func progressCheck() {
        let health = HealthRegistry()
        let start = ContinuousClock.now
        health.register("bottles", maximumSilence: .seconds(5), at: start)
        // A busy CPU: the loop and the checker both run late — a minute of wall clock between
        // rounds — and in each round the checker happens to run first, the loop just after it.
        // The wall-clock view sees a beat a minute old and calls the loop stalled; the
        // progress check sees one beat between every two checks and calls it alive.
        for round in 1...4 {
            let now = start + .seconds(60 * round)
            #expect(health.evaluate(at: now).stalled == ["bottles"])
            #expect(health.check(interval: .seconds(1)).isAlive, "round \(round)")
            health.beat("bottles", at: now + .milliseconds(10))
        }
        #expect(health.check(interval: .seconds(1)).isAlive)
        // Stuck: the checker runs, the loop does not. 5 missed checks of 1 s are its silence;
        // the 6th is past it.
        for missed in 1...5 {
            #expect(health.check(interval: .seconds(1)).isAlive, "missed \(missed)")
        }
        #expect(health.check(interval: .seconds(1)).stalled == ["bottles"])
        #expect(!health.check(interval: .seconds(1)).isAlive)
        // Progress again: alive at the next check.
        health.beat("bottles")
        #expect(health.check(interval: .seconds(1)).isAlive)
    }

    @Test("a change of the check's verdict is told to the fault observers, once per change (the status LED's fast blink)")
    func verdictObserved() {
        let health = HealthRegistry()
        let told = Mutex(0)
        health.observeFaults { told.withLock { $0 += 1 } }
        health.register("bottles", maximumSilence: .seconds(2))
        for _ in 1...2 { _ = health.check(interval: .seconds(1)) }
        #expect(told.withLock { $0 } == 0, "alive: nothing to tell")
        #expect(!health.check(interval: .seconds(1)).isAlive)
        #expect(told.withLock { $0 } == 1, "stalled")
        _ = health.check(interval: .seconds(1))
        #expect(told.withLock { $0 } == 1, "still stalled: told once")
        health.beat("bottles")
        #expect(health.check(interval: .seconds(1)).isAlive)
        #expect(told.withLock { $0 } == 2, "alive again")
    }

    @Test("GPS reception changes are told to the observers; updates that keep it are not")
    func receptionObserved() {
        let status = GPSStatus(source: "sim")
        let told = Mutex(0)
        status.observeReception { told.withLock { $0 += 1 } }
        status.update { $0.hdop = 1.2 }
        #expect(told.withLock { $0 } == 0)
        status.update { $0.reception = .searching }
        status.update { $0.reception = .fix }
        status.update { $0.hdop = 0.9 }
        #expect(told.withLock { $0 } == 2)
    }

    @Test("watchdog pings on a manual clock: a whole-process stall (busy CPU) keeps them, a stuck loop stops them, progress resumes them")
    func pingsFollowProgress() async throws {
        let listener = try NotifySocketListener.abstract()
        let notifier = try SystemdNotifier(address: listener.address)
        let health = HealthRegistry()
        health.register("main", maximumSilence: .seconds(5))
        let clock = ManualClock()
        // Ticks of 1 s: the loop may miss 5 checks.
        let service = NotifyService(notifier: notifier, watchdogInterval: .seconds(2), health: health,
                                    logger: Logger(label: "test"), clock: clock, status: { "testing" })
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        /// One tick: the service is asleep, time moves `by`, the service checks and sleeps again;
        /// what it sent in that tick (nothing, or a ping).
        func tick(by duration: Duration = .seconds(1)) async throws -> String? {
            await clock.waitForSleepers(1)
            clock.advance(by: duration)
            // Back asleep: the tick is done and whatever it sent is on the socket (the send
            // finishes before the loop sleeps), so one look without waiting tells.
            await clock.waitForSleepers(1)
            return try await runBlocking { try listener.receive(timeout: .zero) }
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(try await runBlocking { try listener.receive(timeout: .seconds(30)) } == "READY=1\nSTATUS=testing")
            // Progress every tick: a ping every tick.
            for _ in 0..<3 {
                health.beat("main")
                #expect(try await tick() == "WATCHDOG=1")
            }
            // The whole process was held for a minute at a time (both cores busy): the loop
            // still beats before each late tick, so the pings go on.
            for _ in 0..<3 {
                health.beat("main")
                #expect(try await tick(by: .seconds(60)) == "WATCHDOG=1")
            }
            // The loop is stuck while the watchdog runs: pings for the 5 checks its silence
            // allows, then none.
            for missed in 1...5 {
                #expect(try await tick() == "WATCHDOG=1", "missed check \(missed)")
            }
            #expect(try await tick() == nil)
            #expect(try await tick() == nil)
            // Progress: pings resume at the next tick.
            health.beat("main")
            #expect(try await tick() == "WATCHDOG=1")
            await group.triggerGracefulShutdown()
            let rest = try await runBlocking { try listener.receive(until: "STOPPING=1", timeout: .seconds(15)) }
            #expect(rest.last == "STOPPING=1\nSTATUS=stopping")
            try await tasks.waitForAll()
        }
    }

    @Test("one liveness period: half the watchdog (the unit's 60 s → 30 s), 30 s without one, never under 10 s")
    func livenessPeriod() throws {
        #expect(Daemon.livenessPeriod(watchdogInterval: .seconds(60)) == .seconds(30))
        #expect(Daemon.livenessPeriod(watchdogInterval: nil) == .seconds(30))
        #expect(Daemon.livenessPeriod(watchdogInterval: .seconds(2)) == .seconds(10), "a short watchdog checks more often; the loops do not work more")
        #expect(Daemon.livenessPeriod(watchdogInterval: .seconds(180)) == .seconds(90))
        let unit = try String(contentsOfFile: DriftdProcess.packageRoot + "/systemd/driftd.service", encoding: .utf8)
        #expect(unit.contains("\nWatchdogSec=60s\n"), "the unit's watchdog is what the liveness period and docs/installing.md assume")
    }

    @Test("faults are reported but do not stop the watchdog")
    func faults() {
        let health = HealthRegistry()
        let now = ContinuousClock.now
        health.register("sensors", maximumSilence: .seconds(5), at: now)
        health.setFault("sensors", "BME280 absent")
        let report = health.evaluate(at: now)
        #expect(report.isAlive)
        #expect(report.faults == ["sensors": "BME280 absent"])
        health.setFault("sensors", nil)
        #expect(health.evaluate(at: now).faults.isEmpty)
    }

    /// The same service on the real clock, end to end: READY, pings while the loop beats,
    /// STOPPING. When pings stop for a stalled loop is timing logic, proved on the manual
    /// clock above (a wall-clock version of that check, "no ping within 600 ms", failed on a
    /// busy machine when a late tick still counted an earlier beat).
    @Test("NotifyService on the real clock sends READY, pings while alive, sends STOPPING")
    func notifyServiceOnRealSocket() async throws {
        let listener = try NotifySocketListener.abstract()
        let notifier = try SystemdNotifier(address: listener.address)
        let health = HealthRegistry()
        health.register("main", maximumSilence: .milliseconds(300))
        let service = NotifyService(
            notifier: notifier, watchdogInterval: .milliseconds(100), health: health,
            logger: Logger(label: "test"), status: { "testing" }
        )
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(try await runBlocking { try listener.receive(timeout: .seconds(30)) } == "READY=1\nSTATUS=testing")
            // Keep the loop alive for a while: pings arrive.
            var pings = 0
            for _ in 0..<6 {
                health.beat("main")
                if (try await runBlocking { try listener.receive(timeout: .seconds(10)) }) == "WATCHDOG=1" { pings += 1 }
            }
            #expect(pings >= 4)
            await group.triggerGracefulShutdown()
            let rest = try await runBlocking { try listener.receive(until: "STOPPING=1", timeout: .seconds(15)) }
            #expect(rest.last == "STOPPING=1\nSTATUS=stopping")
            try await tasks.waitForAll()
        }
    }

    @Test("READY=1 waits for the visitor page to listen; a page that never listens delays it only up to the limit")
    func readyWaitsForThePage() async throws {
        for opens in [true, false] {
            let listener = try NotifySocketListener.abstract()
            let gate = StartupGate()
            let clock = ManualClock()
            let service = NotifyService(
                notifier: try SystemdNotifier(address: listener.address), watchdogInterval: nil, health: HealthRegistry(),
                logger: Logger(label: "test"), readyAfter: (gate, .seconds(10)), clock: clock, status: { "testing" })
            let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                // Waiting for the page (its limit is the one sleeper), and not ready before it listens …
                await clock.waitForSleepers(1)
                #expect(try await runBlocking { try listener.receive(timeout: .zero) } == nil)
                clock.advance(by: .seconds(9))
                #expect(try await runBlocking { try listener.receive(timeout: .zero) } == nil)
                // … then at once, no time passing; or, when it never listens, at the limit.
                if opens { gate.open() } else { clock.advance(by: .seconds(1)) }
                #expect(try await runBlocking { try listener.receive(timeout: .seconds(30)) } == "READY=1\nSTATUS=testing")
                #expect(clock.now == .init(offset: .seconds(opens ? 9 : 10)))
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    @Test("a shutdown while READY waits for the page ends the wait at once (no cancellation timeout)", .timeLimit(.minutes(1)))
    func shutdownWhileWaitingForThePage() async throws {
        let listener = try NotifySocketListener.abstract()
        let clock = ManualClock()
        let service = NotifyService(
            notifier: try SystemdNotifier(address: listener.address), watchdogInterval: nil, health: HealthRegistry(),
            logger: Logger(label: "test"), readyAfter: (StartupGate(), .seconds(600)), clock: clock, status: { "testing" })
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await clock.waitForSleepers(1)  // in the wait for the page
            await group.triggerGracefulShutdown()
            // Without the time moving on: a wait the shutdown did not end runs into the time limit.
            try await tasks.waitForAll()
        }
        #expect(try await runBlocking { try listener.receive(until: "STOPPING=1", timeout: .seconds(30)) }.last == "STOPPING=1\nSTATUS=stopping")
    }
}
