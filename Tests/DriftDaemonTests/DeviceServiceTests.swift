import DriftDaemon
import DriftSystem
import Foundation
import Hardware
import Logging
import ServiceLifecycle
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

    /// The first `count` events, or fewer if `timeout` passes first.
    func collect(_ count: Int, from events: AsyncStream<ButtonEvent>, timeout: Duration) async -> [ButtonEvent] {
        await withTaskGroup(of: [ButtonEvent]?.self) { group in
            group.addTask {
                var received: [ButtonEvent] = []
                for await event in events {
                    received.append(event)
                    if received.count == count { break }
                }
                return received
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            return first ?? []
        }
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

    @Test("the status LED flashes a heartbeat and beats into the health registry")
    func heartbeat() async throws {
        let (driver, chip) = try makeChip()
        let led = try chip.requestOutput(named: ["led-status"])
        let health = HealthRegistry()
        let service = StatusLEDService(led: led, health: health, logger: Logger(label: "test"))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var sawOn = false, sawOff = false
            for _ in 0..<150 where !(sawOn && sawOff) {
                if try driver.level(line: "led-status") { sawOn = true } else { sawOff = true }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(sawOn && sawOff)
            #expect(health.evaluate().components.contains(StatusLEDService.componentName))
            #expect(health.evaluate().isAlive)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(try driver.level(line: "led-status") == false, "LED off after shutdown")
    }
}
