import DriftConfig
import DriftSystem
import Foundation
import GNSS
import Hardware
import Logging
import Sensors
import ServiceLifecycle

/// The box's devices as the board profile describes them: opened at start-up
/// (a device that fails is reported as a fault, never fatal) and run by their
/// services.
public struct BoxDevices: Sendable {
    /// The services that run the devices, in start order.
    public var services: [any Service]
    /// Adds device commands (simulated-world control on the sim board) to the control socket.
    public var registerControlCommands: @Sendable (inout ControlCommands) -> Void
    /// GPS time for the clock (a real receiver or gpsd), `nil` otherwise.
    public var gpsTime: GPSTimeSource?

    /// The component name faults of the GPIO chip are reported under.
    public static let gpioComponent = "gpio"

    /// Opens what `config` describes. On the sim board every device is simulated.
    ///
    /// Button presses that matter to bottles are forwarded to `ambient` (the lifecycle processor's
    /// inputs); `bodyState` is what the LEDs show, re-read when `ledChanges` signals.
    public static func open(
        config: DriftConfiguration, health: HealthRegistry,
        ambient: AsyncStream<AmbientInput>.Continuation, logger: Logger, latest: LatestReadings = LatestReadings(),
        gpsStatus: GPSStatus = GPSStatus(source: "none"),
        ledIdle: Duration = .seconds(10),
        wheel: TimerWheel? = nil,
        gpsTimeFloor: Date = GPSTimeSource.defaultFloor,
        ambientGate: AmbientGate? = nil,
        buttonEffects: ButtonBehaviourService.Effects = .init(),
        ledTest: @escaping @Sendable (Duration) -> Duration? = { _ in nil },
        ledChanges: AsyncStream<Void>? = nil,
        bodyState: @escaping @Sendable (Duration) -> BoxBodyState
    ) -> BoxDevices {
        // The periodic loops (sampling, the GPS's power schedule and simulated fixes, the LEDs'
        // idle beat) sleep on the daemon's timer wheel when it has one (``TimerWheel``).
        let clock: any Clock<Duration> = wheel.map { $0.clock } ?? ContinuousClock()
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

        var services: [any Service] = []
        var simulatedWeather: SimulatedWeather?
        if config.i2c.bme280, !config.i2c.bus.isEmpty {
            if config.i2c.bus == "sim" {
                let weather = SimulatedWeather(sensor: SimulatedBME280(bus: "sim", address: UInt8(config.i2c.bme280Address)))
                simulatedWeather = weather
                let timeZone = config.box.timeZone
                services.append(WeatherService(
                    device: weather.sensor.device, interval: config.i2c.sampleInterval,
                    ambient: ambient, gate: ambientGate, health: health, logger: logger, latest: latest,
                    beforeSample: { date in weather.advance(to: date, timeZone: timeZone) }, clock: clock
                ))
            } else {
                // Opened on first use and again after a failure: a bus that appears after the
                // daemon started (i2c-dev loaded late, the VM test's i2c-stub) is picked up by the
                // service's back-off; until then the `sensors` fault names the missing bus.
                let device = ReopeningI2CDevice(bus: config.i2c.bus, address: UInt8(config.i2c.bme280Address))
                services.append(WeatherService(
                    device: device, interval: config.i2c.sampleInterval, ambient: ambient, gate: ambientGate, health: health, logger: logger, latest: latest,
                    clock: clock
                ))
            }
        }
        if config.oneWire.ds18b20 {
            services.append(DS18B20Service(
                devicesDirectory: config.oneWire.devicesDir, interval: config.i2c.sampleInterval,
                publishAsTemperature: !(config.i2c.bme280 && !config.i2c.bus.isEmpty),
                ambient: ambient, gate: ambientGate, health: health, logger: logger, latest: latest
            ))
        }
        var simulatedGPS: SimulatedGPS?
        let stablePosition = StablePosition.Settings(
            maximumHDOP: config.gps.maxHDOP, maximumAge: TimeInterval(config.gps.maxFixAge.components.seconds),
            movedThreshold: config.gps.movedThresholdM
        )
        var gpsTime: GPSTimeSource?
        if config.gps.kind == .nmea || config.gps.kind == .gpsd {
            gpsTime = GPSTimeSource(
                settings: .init(floor: gpsTimeFloor, setsClock: config.gps.setClock, chronyUnit: config.gps.chronySHM >= 0 ? config.gps.chronySHM : nil),
                health: health, logger: logger
            )
        }
        switch config.gps.kind {
        case .none:
            break
        case .sim:
            let gps = SimulatedGPS(
                latitude: config.sim.latitude, longitude: config.sim.longitude, altitude: config.sim.altitudeM,
                replayPath: config.sim.nmeaReplay, sleep: { try await clock.sleep(for: $0) }, wheel: wheel
            )
            simulatedGPS = gps
            // In the beacon profile the simulated receiver is put to sleep like a MediaTek one.
            let saver = gpsPowerSaver(config, logger: logger, clock: clock)
            saver?.attach(sink: { bytes in gps.receive(bytes) })
            services.append(GPSService(source: .stream({ gps.bytes() }), ambient: ambient, status: gpsStatus, health: health, logger: logger,
                                       stablePosition: stablePosition, powerSaver: saver, gate: ambientGate))
        case .nmea:
            // baud 0 asks for detection (BaudDetector).
            services.append(GPSService(source: .serial(path: config.gps.port, baud: config.gps.baud), ambient: ambient, status: gpsStatus, health: health, logger: logger,
                                       stablePosition: stablePosition, timeSource: gpsTime, powerSaver: gpsPowerSaver(config, logger: logger, clock: clock),
                                       gate: ambientGate))
        case .gpsd:
            let address = config.gps.gpsdAddress
            services.append(GPSService(source: .gpsd(host: address.host, port: address.port), ambient: ambient, status: gpsStatus,
                                       health: health, logger: logger, stablePosition: stablePosition, timeSource: gpsTime, gate: ambientGate))
        }
        let gpsControl = simulatedGPS
        let weatherControl = simulatedWeather
        let simulatedWorld: @Sendable (inout ControlCommands) -> Void = { commands in
            if let gps = gpsControl { SimulatedWorldCommands.registerGPS(in: &commands, gps: gps) }
            if let simulatedWeather = weatherControl { SimulatedWorldCommands.registerWeather(in: &commands, weather: simulatedWeather) }
        }

        let chip: GPIOChip
        do {
            chip = try GPIOChip.open(config.gpio.chip, driver: driver)
            logger.info("GPIO chip opened", metadata: ["chip": "\(chip.info.name)", "label": "\(chip.info.label)", "lines": "\(chip.info.lineCount)", "driver": "\(driver.backendDescription)"])
        } catch {
            logger.error("GPIO chip unavailable: buttons and LEDs are off", metadata: ["chip": "\(config.gpio.chip)", "error": "\(error)"])
            health.register(gpioComponent, maximumSilence: nil)
            health.setFault(gpioComponent, "GPIO chip \(config.gpio.chip) unavailable: \(error)")
            return BoxDevices(services: services, registerControlCommands: simulatedWorld, gpsTime: gpsTime)
        }

        let buttons = [("presence", config.buttons.presence), ("keep-alive", config.buttons.keepAlive)].filter { !$0.1.isEmpty }
        if !buttons.isEmpty {
            let buttonService = ButtonService(chip: chip, buttons: buttons, debounce: config.buttons.debounce, logger: logger)
            services.append(buttonService)
            services.append(ButtonBehaviourService(
                events: buttonService.events, ambient: ambient, mapping: ButtonMapping(config: config.buttons),
                settings: .init(longPress: config.buttons.longPress), effects: buttonEffects, logger: logger
            ))
        }
        if !config.rain.line.isEmpty {
            services.append(RainGaugeService(
                chip: chip, line: config.rain.line, millimetresPerTip: config.rain.mmPerTip, ambient: ambient, gate: ambientGate, health: health, logger: logger
            ))
        }
        var outputs: [LEDRole: LEDOutput] = [:]
        var heldOff: [LEDOutput] = []
        let ledLines: [(LEDRole, String)] = [(.status, config.leds.status), (.bottle, config.leds.bottle), (.radio, config.leds.radio), (.gps, config.leds.gps)]
        let ledClass = kernelLEDClass(config, logger: logger)
        for (role, line) in ledLines where !line.isEmpty {
            do {
                let output: LEDOutput
                if let ledClass, KernelLED.exists(LEDOutput.kernelName(role), root: ledClass) {
                    output = .kernel(try KernelLED(name: LEDOutput.kernelName(role), root: ledClass))
                } else {
                    output = .line(try chip.requestOutput(named: [line], consumer: "driftd-\(role.rawValue)-led"))
                }
                logger.debug("LED fitted", metadata: ["led": "\(role.rawValue)", "output": "\(output.description)"])
                // The beacon profile lights only the status LED (health and fault codes, what a kit
                // builder needs); the others are held dark.
                if config.powerProfile == .beacon, role != .status {
                    try output.set(false)
                    heldOff.append(output)
                } else {
                    outputs[role] = output
                }
            } catch {
                logger.error("LED line unavailable", metadata: ["led": "\(role.rawValue)", "line": "\(line)", "error": "\(error)"])
            }
        }
        services.append(LEDService(outputs: outputs, maximumIdle: ledIdle, changes: ledChanges, health: health, logger: logger,
                                   ledTest: ledTest, clock: wheel?.monotonicClock ?? .system, state: bodyState))
        if !heldOff.isEmpty { services.append(DarkLEDs(requests: heldOff)) }

        let register: @Sendable (inout ControlCommands) -> Void = { commands in
            simulatedWorld(&commands)
            guard let simulated else { return }
            SimulatedWorldCommands.register(in: &commands, driver: simulated, config: config)
        }
        return BoxDevices(services: services, registerControlCommands: register, gpsTime: gpsTime)
    }

    /// Where the kernel LEDs `drift-<role>` are looked for, `nil` when `leds.kernel_leds` is off:
    /// `/sys/class/leds`, or on the sim board its simulated class directory
    /// (`<data_dir>/sim/leds`, installed here with one LED per configured role).
    static func kernelLEDClass(_ config: DriftConfiguration, logger: Logger) -> String? {
        guard config.leds.kernelLEDs else { return nil }
        guard config.gpio.backend == .sim else { return KernelLED.classRoot }
        let simulated = SimulatedLEDClass(root: simulatedLEDClassRoot(config))
        let roles: [(LEDRole, String)] = [(.status, config.leds.status), (.bottle, config.leds.bottle), (.radio, config.leds.radio), (.gps, config.leds.gps)]
        do {
            try simulated.install(roles.filter { !$0.1.isEmpty }.map { LEDOutput.kernelName($0.0) })
            return simulated.root
        } catch {
            logger.error("simulated kernel LEDs unavailable: LEDs use GPIO lines", metadata: ["directory": "\(simulated.root)", "error": "\(error)"])
            return nil
        }
    }

    /// The sim board's LED class directory.
    static func simulatedLEDClassRoot(_ config: DriftConfiguration) -> String {
        config.storage.dataDir + "/sim/leds"
    }

    /// The GPS power saver for an NMEA receiver on a serial port whose family is configured or
    /// may be recognised, or for the simulated receiver (which answers MediaTek's commands):
    /// in the beacon profile it sleeps the receiver between position checks; in the default
    /// profile it slows the fixes once the position stands (``settledFixInterval(_:)``).
    /// `nil` when neither applies.
    static func gpsPowerSaver(_ config: DriftConfiguration, logger: Logger,
                              clock: any Clock<Duration> = ContinuousClock()) -> GPSPowerSaver? {
        guard config.gps.kind == .nmea || config.gps.kind == .sim else { return nil }
        let mode: GPSPowerSchedule.Mode
        if config.powerProfile == .beacon {
            mode = .sleep
        } else if let interval = settledFixInterval(config) {
            mode = .slowFixes(interval: interval)
        } else {
            return nil
        }
        let family: GNSSReceiverFamily?
        switch config.power.gpsReceiver {
        case .none: return nil
        case .auto: family = config.gps.kind == .sim ? .mediatek : nil   // the simulated receiver speaks PMTK
        case .ublox: family = .ublox
        case .mediatek: family = .mediatek
        }
        return GPSPowerSaver(
            settings: .init(mode: mode, wakeInterval: config.power.gpsWakeInterval, checkLimit: config.power.gpsCheck),
            family: family, detect: config.power.gpsReceiver == .auto, clock: clock, logger: logger)
    }

    /// The default profile's slow fix interval once the position stands
    /// (`gps.settled_fix_interval_s`), or `nil`: another profile, another source, set to 1 s,
    /// or `power.gps_receiver = "none"`.
    static func settledFixInterval(_ config: DriftConfiguration) -> Duration? {
        guard config.powerProfile != .beacon, config.gps.kind == .nmea || config.gps.kind == .sim,
              config.power.gpsReceiver != .none, config.gps.settledFixInterval > GPSPowerSchedule.trackingInterval else { return nil }
        return config.gps.settledFixInterval
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

    /// The number under `key`, checked against `range`; `nil` when the argument is absent.
    static func number(_ arguments: [String: String], _ key: String, _ range: ClosedRange<Double>) throws -> Double? {
        guard let text = arguments[key] else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw ControlError(code: "bad_argument", message: "\(key) must be a number in \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    struct Weather: Codable, Sendable, Equatable {
        var celsius: Double
        var hectopascals: Double
        var relativeHumidity: Double
        var plugged: Bool
        var mode: String
    }

    /// `sim.weather celsius=… hpa=… humidity=…` sets fixed weather (missing values keep the
    /// current ones); `mode=cycle` returns to the daily cycle; `plugged=false|true` unplugs or
    /// re-plugs the BME280. Answers the sensor's current state.
    static func registerWeather(in commands: inout ControlCommands, weather: SimulatedWeather) {
        commands.register("sim.weather") { arguments in
            if let plugged = arguments["plugged"] {
                guard let value = Bool(plugged) else {
                    throw ControlError(code: "bad_argument", message: "plugged must be true or false")
                }
                weather.sensor.isPlugged = value
            }
            if arguments["mode"] == "cycle" {
                weather.setOverride(nil)
            } else if arguments["celsius"] != nil || arguments["hpa"] != nil || arguments["humidity"] != nil {
                var conditions = weather.sensor.conditions
                if let value = try number(arguments, "celsius", -40...85) { conditions.celsius = value }
                if let value = try number(arguments, "hpa", 300...1100) { conditions.hectopascals = value }
                if let value = try number(arguments, "humidity", 0...100) { conditions.relativeHumidity = value }
                weather.setOverride(conditions)
            }
            let current = weather.sensor.conditions
            return Weather(
                celsius: current.celsius, hectopascals: current.hectopascals, relativeHumidity: current.relativeHumidity,
                plugged: weather.sensor.isPlugged, mode: weather.isOverridden ? "fixed" : "cycle"
            )
        }
    }

    /// `sim.gps lat=… lon=… alt=…` moves the simulated receiver; `fix=false` makes it lose its
    /// fix (it keeps answering), `fix=true` gives it back. Answers the receiver's position.
    static func registerGPS(in commands: inout ControlCommands, gps: SimulatedGPS) {
        commands.register("sim.gps") { arguments in
            let latitude = try number(arguments, "lat", -90...90)
            let longitude = try number(arguments, "lon", -180...180)
            let altitude = try number(arguments, "alt", -500...9000)
            var fix: Bool?
            if let text = arguments["fix"] {
                guard let value = Bool(text) else { throw ControlError(code: "bad_argument", message: "fix must be true or false") }
                fix = value
            }
            gps.move { position in
                if let latitude { position.latitude = latitude }
                if let longitude { position.longitude = longitude }
                if let altitude { position.altitude = altitude }
                if let fix { position.hasFix = fix }
            }
            return gps.current
        }
    }

    struct Pressed: Codable, Sendable, Equatable {
        var button: String
        var milliseconds: Int
    }

    struct RainTips: Codable, Sendable, Equatable {
        var tips: Int
    }

    static func register(in commands: inout ControlCommands, driver: SimulatedGPIODriver, config: DriftConfiguration) {
        let buttonLines = ["presence": config.buttons.presence, "keep-alive": config.buttons.keepAlive]
        let ledLines = ["status": config.leds.status, "bottle": config.leds.bottle, "radio": config.leds.radio, "gps": config.leds.gps]
            .filter { !$0.value.isEmpty }

        // `sim.press button=presence ms=150`: press (pull the line to ground), hold, release, and
        // answer once the release has outlasted the debounce window: a press sent right after
        // this one's answer is a press of its own (no finger presses again within 30 ms; a
        // release shorter than the window is filtered out as bounce, which merged back-to-back
        // `ctl press` calls into one press and so miscounted a presence burst).
        let settle = config.buttons.debounce * 3
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
            try await Task.sleep(for: settle)
            return Pressed(button: role, milliseconds: milliseconds)
        }

        // `sim.rain tips=3`: tip the rain gauge bucket N times (each a short closure of the
        // reed switch, 100 ms apart, with some contact bounce that must not count).
        if !config.rain.line.isEmpty {
            let rain = SimulatedRainGauge(driver: driver, line: config.rain.line)
            commands.register("sim.rain") { arguments in
                let tips = Int(arguments["tips"] ?? "1") ?? -1
                guard (1...1000).contains(tips) else {
                    throw ControlError(code: "bad_argument", message: "tips must be 1…1000")
                }
                try rain.tip(tips)
                return RainTips(tips: tips)
            }
        }

        // `sim.leds`: the electrical level of every LED line: the simulated kernel's for a
        // kernel LED (what its trigger drives now), the simulated chip's otherwise.
        let ledClass = config.leds.kernelLEDs ? SimulatedLEDClass(root: BoxDevices.simulatedLEDClassRoot(config)) : nil
        commands.register("sim.leds") { _ in
            var levels: [String: Bool] = [:]
            for (role, line) in ledLines {
                let kernelName = "drift-\(role)"
                if let ledClass, KernelLED.exists(kernelName, root: ledClass.root) {
                    levels[role] = try ledClass.level(of: kernelName)
                } else {
                    levels[role] = try driver.level(line: line)
                }
            }
            return LineLevels(lines: levels)
        }
    }
}

/// LED lines the beacon profile keeps dark: requested (so nothing else drives them), set low,
/// held until the daemon stops. Wakes for nothing.
struct DarkLEDs: Service {
    let requests: [LEDOutput]

    func run() async throws {
        try? await gracefulShutdown()
        withExtendedLifetime(requests) {}
    }
}
