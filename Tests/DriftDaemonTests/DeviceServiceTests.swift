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
        let service = ButtonService(chip: chip, buttons: [("presence", "presence")], debounce: .milliseconds(30), logger: Logger(label: "test"))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await waitUntilRequested("presence", on: chip)
            // A bouncing contact: five edges within 10 ms, then held down.
            let t0 = MonotonicTime.now()
            for (index, level) in [false, true, false, true, false].enumerated() {
                try driver.drive(line: "presence", to: level ? nil : false, at: t0 + .milliseconds(index * 2))
            }
            try await Task.sleep(for: .milliseconds(150))
            try driver.drive(line: "presence", to: nil)
            let received = await collect(2, from: service.events, timeout: .seconds(10))
            #expect(received.map(\.pressed) == [true, false])
            #expect(received.allSatisfy { $0.button == "presence" })
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("a glitch shorter than the window is not a press")
    func glitchIgnored() async throws {
        let (driver, chip) = try makeChip()
        let service = ButtonService(chip: chip, buttons: [("presence", "presence")], debounce: .milliseconds(30), logger: Logger(label: "test"))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await waitUntilRequested("presence", on: chip)
            let t0 = MonotonicTime.now()
            try driver.drive(line: "presence", to: false, at: t0)
            try driver.drive(line: "presence", to: nil, at: t0 + .milliseconds(5))
            try await Task.sleep(for: .milliseconds(200))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        var received: [ButtonEvent] = []
        for await event in service.events { received.append(event) }
        #expect(received.isEmpty)
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
        let service = LEDService(outputs: outputs, refresh: .milliseconds(50), health: health, logger: Logger(label: "test")) { _ in
            BoxBodyState(openableBottles: openable.withLock { $0 })
        }
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var statusLevels = Set<Bool>()
            for _ in 0..<300 where statusLevels.count < 2 {
                statusLevels.insert(try driver.level(line: "led-status"))
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(statusLevels == [true, false], "the healthy heartbeat flashes")
            #expect(health.evaluate().components.contains(LEDService.componentName))
            #expect(health.evaluate().isAlive)

            var bottleLevels = Set<Bool>()
            for _ in 0..<50 { bottleLevels.insert(try driver.level(line: "led-bottle")); try await Task.sleep(for: .milliseconds(5)) }
            #expect(bottleLevels == [false], "no bottles: the bottle LED is off")
            openable.withLock { $0 = 2 }
            var lit = false
            for _ in 0..<300 where !lit {
                lit = try driver.level(line: "led-bottle")
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(lit, "openable bottles light the bottle LED")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(try driver.level(line: "led-status") == false, "LEDs off after shutdown")
        #expect(try driver.level(line: "led-bottle") == false)
    }
}
