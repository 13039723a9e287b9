import DriftConfig
import Foundation
import Hardware
import Logging
import ServiceLifecycle

/// The box's devices as the board profile describes them: opened at start-up
/// (a device that fails is reported as a fault, never fatal) and run by their
/// services.
public struct BoxDevices: Sendable {
    /// The services that run the devices, in start order.
    public var services: [any Service]
    /// Adds device commands (simulated-world control on the sim board) to the control socket.
    public var registerControlCommands: @Sendable (inout ControlCommands) -> Void

    /// The component name faults of the GPIO chip are reported under.
    public static let gpioComponent = "gpio"

    /// Opens what `config` describes. On the sim board every device is simulated.
    ///
    /// Button presses that matter to bottles are forwarded to `ambient` (the lifecycle processor's inputs).
    public static func open(
        config: DriftConfiguration, health: HealthRegistry,
        ambient: AsyncStream<AmbientInput>.Continuation, logger: Logger
    ) -> BoxDevices {
        let simulated: SimulatedGPIODriver?
        let driver: any GPIODriver
        switch config.gpio.backend {
        case .sim:
            let sim = SimulatedGPIODriver()
            _ = sim.addChip(name: "gpiochip0", label: config.gpio.chip, lineNames: configuredLines(config))
            simulated = sim
            driver = sim
        case .libgpiod:
            simulated = nil
            driver = LibgpiodDriver()
        }

        let chip: GPIOChip
        do {
            chip = try GPIOChip.open(config.gpio.chip, driver: driver)
            logger.info("GPIO chip opened", metadata: ["chip": "\(chip.info.name)", "label": "\(chip.info.label)", "lines": "\(chip.info.lineCount)", "driver": "\(driver.backendDescription)"])
        } catch {
            logger.error("GPIO chip unavailable: buttons and LEDs are off", metadata: ["chip": "\(config.gpio.chip)", "error": "\(error)"])
            health.register(gpioComponent, maximumSilence: nil)
            health.setFault(gpioComponent, "GPIO chip \(config.gpio.chip) unavailable: \(error)")
            return BoxDevices(services: [], registerControlCommands: { _ in })
        }

        var services: [any Service] = []
        let buttons = [("presence", config.buttons.presence), ("keep-alive", config.buttons.keepAlive)].filter { !$0.1.isEmpty }
        if !buttons.isEmpty {
            let buttonService = ButtonService(chip: chip, buttons: buttons, debounce: config.buttons.debounce, logger: logger)
            services.append(buttonService)
            services.append(ButtonBehaviourService(events: buttonService.events, ambient: ambient, logger: logger))
        }
        var statusLED: GPIOOutputRequest?
        if !config.leds.status.isEmpty {
            do {
                statusLED = try chip.requestOutput(named: [config.leds.status], consumer: "driftd-status-led")
            } catch {
                logger.error("status LED line unavailable", metadata: ["line": "\(config.leds.status)", "error": "\(error)"])
            }
        }
        services.append(StatusLEDService(led: statusLED, health: health, logger: logger))

        let register: @Sendable (inout ControlCommands) -> Void = { commands in
            guard let simulated else { return }
            SimulatedWorldCommands.register(in: &commands, driver: simulated, config: config)
        }
        return BoxDevices(services: services, registerControlCommands: register)
    }

    /// Every line name the config uses, for the simulated chip.
    static func configuredLines(_ config: DriftConfiguration) -> [String] {
        let names = [
            config.buttons.presence, config.buttons.keepAlive,
            config.leds.status, config.leds.bottle, config.leds.radio, config.leds.gps,
            config.rain.line, config.e22.m0, config.e22.m1, config.e22.aux,
        ]
        var seen = Set<String>()
        return names.filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}

/// Control-socket commands that act on the simulated world (sim board only).
enum SimulatedWorldCommands {
    struct LineLevels: Codable, Sendable, Equatable {
        var lines: [String: Bool]
    }

    struct Pressed: Codable, Sendable, Equatable {
        var button: String
        var milliseconds: Int
    }

    static func register(in commands: inout ControlCommands, driver: SimulatedGPIODriver, config: DriftConfiguration) {
        let buttonLines = ["presence": config.buttons.presence, "keep-alive": config.buttons.keepAlive]
        let ledLines = ["status": config.leds.status, "bottle": config.leds.bottle, "radio": config.leds.radio, "gps": config.leds.gps]
            .filter { !$0.value.isEmpty }

        // `sim.press button=presence ms=150`: press (pull the line to ground), hold, release.
        commands.register("sim.press") { arguments in
            guard let role = arguments["button"], let line = buttonLines[role], !line.isEmpty else {
                throw ControlError(code: "bad_argument", message: "button must be one of: \(buttonLines.filter { !$0.value.isEmpty }.keys.sorted().joined(separator: ", "))")
            }
            let milliseconds = Int(arguments["ms"] ?? "150") ?? -1
            guard (1...60_000).contains(milliseconds) else {
                throw ControlError(code: "bad_argument", message: "ms must be 1…60000")
            }
            try driver.drive(line: line, to: false)
            try await Task.sleep(for: .milliseconds(milliseconds))
            try driver.drive(line: line, to: nil)
            return Pressed(button: role, milliseconds: milliseconds)
        }

        // `sim.leds`: the electrical level of every LED line.
        commands.register("sim.leds") { _ in
            var levels: [String: Bool] = [:]
            for (role, line) in ledLines {
                levels[role] = try driver.level(line: line)
            }
            return LineLevels(lines: levels)
        }
    }
}
