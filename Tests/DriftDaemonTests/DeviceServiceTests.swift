import DriftDaemon
import DriftSystem
import Foundation
import Hardware
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@Suite("Buttons and the status LED on the simulated chip")
struct DeviceServiceTests {
    func makeChip() throws -> (SimulatedGPIODriver, GPIOChip) {
        let driver = SimulatedGPIODriver()
        _ = driver.addChip(name: "gpiochip0", label: "drift-sim", lineNames: ["presence", "keep-alive", "led-status"])
        return (driver, try GPIOChip.open("drift-sim", driver: driver))
    }

    /// Waits until the service has requested `line` (under load, start-up can take a while).
    func waitUntilRequested(_ line: String, on chip: GPIOChip) async throws {
        for _ in 0..<500 {
            if try chip.line(named: line).isUsed { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("\(line) was never requested")
    }

    @Test("chatter within the debounce window is one press; the release follows")
    func debouncedPress() async throws {
        let (driver, chip) = try makeChip()
        let clock = ManualClock()
        let monotonic = MonotonicClock(clock, start: .seconds(100))
        let service = ButtonService(chip: chip, buttons: [("presence", "presence")], debounce: .milliseconds(30), logger: Logger(label: "test"),
                                    clock: monotonic)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await waitUntilRequested("presence", on: chip)
            // A bouncing contact: five edges within 10 ms, then held down.
            let t0 = monotonic.now()
            for (index, level) in [false, true, false, true, false].enumerated() {
                try driver.drive(line: "presence", to: level ? nil : false, at: t0 + .milliseconds(index * 2))
            }
            // Each edge handled starts a wait for its window's end: all five are in before time moves.
            await clock.waitForSleepsBegun(5)
            clock.advance(by: .milliseconds(150))
            try driver.drive(line: "presence", to: nil, at: monotonic.now())
            let begun = clock.sleepsBegun
            await clock.waitForSleepsBegun(begun + 1)
            clock.advance(by: .milliseconds(150))
            let received = await collect(2, from: service.events, timeout: .seconds(30))
            #expect(received.map(\.pressed) == [true, false])
            #expect(received.allSatisfy { $0.button == "presence" })
            #expect(received.first.map { $0.at == t0 + .milliseconds(8) } == true,
                    "the press dates from the last bounce: \(received.map(\.at))")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("a glitch shorter than the window is not a press")
    func glitchIgnored() async throws {
        let (driver, chip) = try makeChip()
        let clock = ManualClock()
        let monotonic = MonotonicClock(clock, start: .seconds(100))
        let service = ButtonService(chip: chip, buttons: [("presence", "presence")], debounce: .milliseconds(30), logger: Logger(label: "test"),
                                    clock: monotonic)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        var received: [ButtonEvent] = []
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await waitUntilRequested("presence", on: chip)
            let t0 = monotonic.now()
            try driver.drive(line: "presence", to: false, at: t0)
            await clock.waitForSleepsBegun(1)
            try driver.drive(line: "presence", to: nil, at: t0 + .milliseconds(5))
            await clock.waitForSleepsBegun(2)
            clock.advance(by: .milliseconds(200))
            // A real press afterwards is the marker: the glitch's deadlines were handled before it.
            try driver.drive(line: "presence", to: false, at: monotonic.now())
            await clock.waitForSleepsBegun(3)
            clock.advance(by: .milliseconds(100))
            received = await collect(1, from: service.events, timeout: .seconds(30))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        for await event in service.events { received.append(event) }
        #expect(received.map(\.pressed) == [true], "only the real press, none for the glitch")
        #expect(received.first.map { $0.at == .seconds(100) + .milliseconds(200) } == true, "\(received.map(\.at))")
    }

    @Test("LEDs follow the box state: status heartbeat, bottle LED on for openable bottles; the loop beats into health")
    func leds() async throws {
        let driver = SimulatedGPIODriver()
        _ = driver.addChip(name: "gpiochip0", label: "drift-sim", lineNames: ["led-status", "led-bottle"])
        let chip = try GPIOChip.open("drift-sim", driver: driver)
        let outputs: [LEDRole: GPIOOutputRequest] = [
            .status: try chip.requestOutput(named: ["led-status"]),
            .bottle: try chip.requestOutput(named: ["led-bottle"]),
        ]
        let health = HealthRegistry()
        let openable = Mutex(0)
        let clock = ManualClock()
        let service = LEDService(outputs: outputs.mapValues(LEDOutput.line), refresh: .milliseconds(50), health: health, logger: Logger(label: "test"),
                                 clock: MonotonicClock(clock, start: .seconds(100))) { _ in
            BoxBodyState(openableBottles: openable.withLock { $0 })
        }
        /// Moves the clock to the loop's next wake-up and waits until it rendered and slept again.
        func step() async {
            let begun = clock.sleepsBegun
            clock.advanceToNextDeadline()
            await clock.waitForSleepsBegun(begun + 1)
        }
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await clock.waitForSleepsBegun(1)
            var statusLevels = Set<Bool>()
            for _ in 0..<20 where statusLevels.count < 2 {
                statusLevels.insert(try driver.level(line: "led-status"))
                await step()
            }
            #expect(statusLevels == [true, false], "the healthy heartbeat flashes")
            // The loop beats at most once a second of its clock: a second on, it beats again
            // (the registry judges silence on the real clock, so look right after the beat).
            let beforeBeat = clock.sleepsBegun
            clock.advance(by: .seconds(1))
            await clock.waitForSleepsBegun(beforeBeat + 1)
            let report = health.evaluate()
            #expect(report.components.contains(LEDService.componentName))
            #expect(report.isAlive, "\(report)")

            var bottleLevels = Set<Bool>()
            for _ in 0..<10 {
                bottleLevels.insert(try driver.level(line: "led-bottle"))
                await step()
            }
            #expect(bottleLevels == [false], "no bottles: the bottle LED is off")
            openable.withLock { $0 = 2 }
            // The state is re-read at the next refresh (50 ms on the manual clock), at most a few wake-ups away.
            let changedAt = clock.now
            while try !driver.level(line: "led-bottle"), clock.now < changedAt.advanced(by: .milliseconds(50)) {
                await step()
            }
            #expect(try driver.level(line: "led-bottle"), "openable bottles light the bottle LED within one refresh")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(try driver.level(line: "led-status") == false, "LEDs off after shutdown")
        #expect(try driver.level(line: "led-bottle") == false)
    }
}
