import DriftCore
@testable import DriftDaemon
import DriftStore
import DriftSystem
import Foundation
import Hardware
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@Suite("Event-driven LED refresh")
struct LEDRefreshTests {
    @Test("the bottle summary is read off the LED path: once, again only after a bottle event or the recheck")
    func bottleSummaryCached() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let health = HealthRegistry()
        let events = EventBus()
        let source = BoxBodyStateSource(health: health, store: harness.store, configInvalid: false, gps: GPSStatus(source: "none"),
                                        gpsConfigured: false, logger: Logger(label: "test"), events: events)
        let id = BottlesFixtures.bottleID(1)
        try harness.create(id, conditions: [BottleCondition(.delay(UnlockDelay(seconds: 60)))])
        let t0 = Duration.seconds(1_000)
        // Without the service nothing reads the store: a refresh never waits for SQLite.
        #expect(source.state(at: t0).openableBottles == 0)
        #expect(source.bottleStoreReads == 0)

        let group = ServiceGroup(services: [source], logger: Logger(label: "test"))
        var changes = source.changes.makeAsyncIterator()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // The first refresh's request (asked above) is read once the service runs, after it
            // subscribed to the bus; the fresh summary is signalled.
            #expect(await changes.next() != nil)
            #expect(source.bottleStoreReads == 1)
            for tick in 0..<20 {
                #expect(source.state(at: t0 + .milliseconds(100 * tick)).openableBottles == 0)
            }
            #expect(source.bottleStoreReads == 1, "20 refreshes, one store read")

            // The processor opens the bottle; its event (followed from the bus) makes the summary stale.
            await harness.processor.process(now: BottlesFixtures.start.addingTimeInterval(61))
            let opened = try #require(await harness.takeEvents().first)
            await events.publish(opened)
            #expect(await changes.next() != nil, "the LED service is told")
            #expect(source.state(at: t0 + .seconds(3)).openableBottles == 0, "the previous summary shows while the read runs")
            #expect(await changes.next() != nil, "the fresh summary is signalled")
            #expect(source.state(at: t0 + .seconds(3)).openableBottles == 1)
            #expect(source.bottleStoreReads == 2)

            // Past the safety recheck the store is read again even without events.
            _ = source.state(at: t0 + .seconds(3) + BoxBodyStateSource.bottleRecheck)
            #expect(await changes.next() != nil)
            #expect(source.bottleStoreReads == 3)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("a radio that could not start (it never registered) is the radio fault: status and the blink code show it")
    func faultOfAComponentThatNeverStarted() async throws {
        let directory = try TemporaryDirectory(prefix: "leds")
        defer { directory.remove() }
        let health = HealthRegistry()
        let source = BoxBodyStateSource(health: health, store: BottleStore(database: try DriftDatabase.open(path: directory.appending("d.sqlite"))),
                                        configInvalid: false, gps: GPSStatus(source: "none"), gpsConfigured: false, logger: Logger(label: "test"))
        var changes = source.changes.makeAsyncIterator()
        // What the daemon does when the mesh cannot start: the radio component never registered.
        health.setFault(MeshService.component, "simulated radio on UDP port 47300: bind: Address already in use")
        #expect(await changes.next() != nil)
        #expect(health.evaluate().faults[MeshService.component]?.contains("Address already in use") == true)
        #expect(health.evaluate().isAlive, "a fault is not a stalled loop: the watchdog keeps pinging")
        #expect(source.state(at: MonotonicTime.now()).faults == [.radioAbsent])
        // Clearing a fault that was never set does not make one up.
        health.setFault("nothing-here", nil)
        #expect(health.evaluate().faults["nothing-here"] == nil)
    }

    @Test("a fault appearing or clearing signals a change")
    func faultsSignal() async throws {
        let directory = try TemporaryDirectory(prefix: "leds")
        defer { directory.remove() }
        let health = HealthRegistry()
        health.register(WeatherService.component, maximumSilence: nil)
        let source = BoxBodyStateSource(health: health, store: BottleStore(database: try DriftDatabase.open(path: directory.appending("d.sqlite"))),
                                        configInvalid: false, gps: GPSStatus(source: "none"), gpsConfigured: false, logger: Logger(label: "test"))
        var changes = source.changes.makeAsyncIterator()
        health.setFault(WeatherService.component, "unplugged")
        #expect(await changes.next() != nil)
        #expect(source.state(at: MonotonicTime.now()).faults == [.sensorFault])
        health.setFault(WeatherService.component, nil)
        #expect(await changes.next() != nil)
        #expect(source.state(at: MonotonicTime.now()).faults.isEmpty)
    }

    @Test("the LED service re-reads the state on a change signal, not every tick")
    func serviceWaitsForSignals() async throws {
        let driver = SimulatedGPIODriver()
        _ = driver.addChip(name: "gpiochip0", label: "drift-sim", lineNames: ["led-status", "led-bottle"])
        let chip = try GPIOChip.open("drift-sim", driver: driver)
        let outputs: [LEDRole: GPIOOutputRequest] = [
            .status: try chip.requestOutput(named: ["led-status"]),
            .bottle: try chip.requestOutput(named: ["led-bottle"]),
        ]
        let openable = Mutex(0)
        let reads = Mutex(0)
        let (changes, change) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // A refresh far longer than the test: only the signal can make it re-read the state.
        let clock = ManualClock()
        let service = LEDService(outputs: outputs.mapValues(LEDOutput.line), refresh: .seconds(600), changes: changes, health: HealthRegistry(), logger: Logger(label: "test"),
                                 clock: MonotonicClock(clock, start: .seconds(100))) { _ in
            reads.withLock { $0 += 1 }
            return BoxBodyState(openableBottles: openable.withLock { $0 })
        }
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await clock.waitForSleepsBegun(1)
            // The heartbeat keeps blinking (edge wake-ups) without re-reading the state.
            var statusLevels = Set<Bool>()
            for _ in 0..<20 where statusLevels.count < 2 {
                statusLevels.insert(try driver.level(line: "led-status"))
                let begun = clock.sleepsBegun
                clock.advanceToNextDeadline()
                await clock.waitForSleepsBegun(begun + 1)
            }
            #expect(statusLevels == [true, false])
            #expect(reads.withLock { $0 } == 1)
            #expect(try driver.level(line: "led-bottle") == false)

            // The signal alone (the clock stands still) makes it read the state and render.
            openable.withLock { $0 = 1 }
            let begun = clock.sleepsBegun
            change.yield()
            await clock.waitForSleepsBegun(begun + 1)
            #expect(try driver.level(line: "led-bottle"), "the signal re-rendered the bottle LED")
            #expect(reads.withLock { $0 } == 2)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("kernel LEDs get a repeating pattern once and blink without waking the loop; a GPIO line beside them still does")
    func kernelLEDsBlinkThemselves() async throws {
        let directory = try TemporaryDirectory(prefix: "kernel-leds")
        defer { directory.remove() }
        let sysfs = SimulatedLEDClass(root: directory.path)
        try sysfs.install(["drift-status", "drift-bottle"])
        let driver = SimulatedGPIODriver()
        _ = driver.addChip(name: "gpiochip0", label: "drift-sim", lineNames: ["led-gps"])
        let chip = try GPIOChip.open("drift-sim", driver: driver)
        let outputs: [LEDRole: LEDOutput] = [
            .status: .kernel(try KernelLED(name: "drift-status", root: directory.path)),
            .bottle: .kernel(try KernelLED(name: "drift-bottle", root: directory.path)),
            .gps: .line(try chip.requestOutput(named: ["led-gps"])),
        ]
        let state = Mutex(BoxBodyState(gps: .fix))
        let (changes, change) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let clock = ManualClock()
        let service = LEDService(outputs: outputs, refresh: .seconds(1), maximumIdle: .seconds(2), changes: changes, health: HealthRegistry(),
                                 logger: Logger(label: "test"), clock: MonotonicClock(clock, start: .seconds(100))) { _ in
            state.withLock { $0 }
        }
        func pattern(_ led: String) throws -> String {
            try String(contentsOfFile: directory.appending("\(led)/pattern"), encoding: .utf8)
        }
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await clock.waitForSleepsBegun(1)
            #expect(try pattern("drift-status") == "1 100 1 0 0 100 0 0 1 100 1 0 0 700 0 0", "the heartbeat, handed over")
            #expect(try pattern("drift-bottle") == "0 60000 0 0", "dark")
            #expect(try driver.level(line: "led-gps"), "the GPS line is driven as before")
            // Nothing blinks in software: the loop sleeps to its idle limit, not to the next beat.
            #expect(clock.nextDeadline == clock.now.advanced(by: .seconds(2)))

            // Openable bottles: the slow blink goes to the kernel too; a fault swaps the status pattern.
            state.withLock {
                $0.openableBottles = 2
                $0.faults = [.sensorFault]
            }
            var begun = clock.sleepsBegun
            change.yield()
            await clock.waitForSleepsBegun(begun + 1)
            #expect(try pattern("drift-bottle") == "1 1000 1 0 0 1000 0 0")
            #expect(try pattern("drift-status").hasPrefix("1 300 1 0 0 300 0 0 1 300 1 0 0 300 0 0"), "blink code 5")
            #expect(clock.nextDeadline == clock.now.advanced(by: .seconds(2)))

            // A live chat pulses by software PWM, which the kernel's timer is too coarse for:
            // driftd blinks the kernel LED itself, edge by edge.
            state.withLock { $0.chatAlive = true }
            begun = clock.sleepsBegun
            change.yield()
            await clock.waitForSleepsBegun(begun + 1)
            #expect(clock.nextDeadline.map { clock.now.duration(to: $0) < .seconds(1) } == true, "a PWM edge, not the idle limit")
            var levels = Set<Bool>()
            for _ in 0..<60 where levels.count < 2 {
                levels.insert(try sysfs.level(of: "drift-bottle"))
                begun = clock.sleepsBegun
                clock.advanceToNextDeadline()
                await clock.waitForSleepsBegun(begun + 1)
            }
            #expect(levels == [true, false])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(try pattern("drift-status") == "0 60000 0 0", "dark once driftd stops")
        #expect(try sysfs.level(of: "drift-bottle") == false)
    }

    @Test("a dying chat's countdown asks for re-evaluation at each blink-speed threshold")
    func dyingThresholds() {
        let mapping = LEDMapping()
        let now = Duration.seconds(100)
        #expect(mapping.nextReevaluation(for: BoxBodyState(dyingChatRemaining: .seconds(300)), now: now) == now + .seconds(180))
        #expect(mapping.nextReevaluation(for: BoxBodyState(dyingChatRemaining: .seconds(100)), now: now) == now + .seconds(70))
        #expect(mapping.nextReevaluation(for: BoxBodyState(dyingChatRemaining: .seconds(10)), now: now) == nil)
        #expect(mapping.nextReevaluation(for: BoxBodyState(), now: now) == nil)
    }
}
