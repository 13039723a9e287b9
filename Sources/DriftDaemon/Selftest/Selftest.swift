import DriftConfig
import DriftStore
import DriftSystem
import Foundation
import Hardware
import Sensors

#if canImport(Glibc)
import Glibc
#endif

/// `driftd selftest`: checks every configured device and the store, one line
/// per check, so a field tester can see what works on a freshly flashed box.
///
/// Run it with the daemon stopped: the daemon holds the GPIO lines and serial
/// ports, and a check that finds them busy says so. Nothing here throws or
/// crashes on missing hardware: every failure is a FAIL line with the reason.
public struct Selftest: Sendable {
    public let config: DriftConfiguration
    /// Problems of the config file, when the last known good copy is being checked instead.
    public let configProblems: [String]
    public let environment: [String: String]
    /// How long to wait for NMEA on a GPS port.
    public var gpsListen: Duration = .seconds(3)
    /// How long each LED is lit during the walk.
    public var ledWalkStep: Duration = .milliseconds(300)
    /// How long a Meshtastic node may take to answer the handshake.
    public var meshtasticListen: Duration = .seconds(20)
    /// How long an E22 module may take to answer a command or a read (`nil`: the driver's 1 s).
    public var e22AnswerTimeout: Duration?

    public init(config: DriftConfiguration, configProblems: [String] = [], environment: [String: String]) {
        self.config = config
        self.configProblems = configProblems
        self.environment = environment
    }

    public func run() async -> SelftestReport {
        var checks: [SelftestReport.Check] = []
        checks.append(configCheck())
        checks.append(contentsOf: storageChecks())
        checks.append(contentsOf: await gpioChecks())
        checks.append(await gpsCheck())
        checks.append(await radioCheck())
        checks.append(await weatherCheck())
        checks.append(contentsOf: oneWireChecks())
        checks.append(notifyCheck())
        return SelftestReport(board: config.box.board, checks: checks, serialPorts: serialPorts())
    }

    // MARK: - Checks

    func configCheck() -> SelftestReport.Check {
        // The power profile is said here, so a kit builder sees the box will serve no page.
        if configProblems.isEmpty { return .init("config", .pass, "valid, power profile \(config.powerProfile.rawValue)") }
        return .init("config", .fail, "the config file is invalid (checking the last known good copy): " + configProblems.joined(separator: "; "))
    }

    func storageChecks() -> [SelftestReport.Check] {
        let directory = config.storage.dataDir
        var checks: [SelftestReport.Check] = []
        do {
            // Made owner-only when missing; an existing one is left as it is, so the check below
            // reports what the box really has.
            if OwnerOnlyFiles.mode(of: directory) == nil { try OwnerOnlyFiles.makeDirectory(directory) }
            let probe = directory + "/.selftest-\(getpid())"
            try Data("drift".utf8).write(to: URL(fileURLWithPath: probe), options: .atomic)
            try FileManager.default.removeItem(atPath: probe)
            if let free = DataDirectory.freeMegabytes(at: directory) {
                let ok = free >= Int64(config.storage.minFreeMB)
                checks.append(.init("storage.data_dir", ok ? .pass : .fail, "\(directory) writable, \(free) MiB free (minimum \(config.storage.minFreeMB))"))
            } else {
                checks.append(.init("storage.data_dir", .pass, "\(directory) writable"))
            }
        } catch {
            checks.append(.init("storage.data_dir", .fail, "\(directory) not writable: \(error.localizedDescription)"))
            return checks
        }
        checks.append(permissionsCheck(directory))
        do {
            let database = try DriftDatabase.open(path: directory + "/drift.sqlite")
            let result = try database.integrityCheck()
            let synchronous = try database.writerSynchronous()
            let durable = synchronous >= 2
            checks.append(.init(
                "storage.database", result == "ok" && durable ? .pass : .fail,
                "integrity_check: \(result); commits " + (durable ? "fsync'd (synchronous=FULL)" : "NOT fsync'd (synchronous=\(synchronous)): a power cut loses them")))
        } catch {
            checks.append(.init("storage.database", .fail, "cannot open: \(error)"))
        }
        return checks
    }

    /// The data directory holds the box secret, bottles, chats and media: it fails when anyone
    /// but its owner may enter it or read a file anywhere below it (driftd makes it 0700 and its
    /// files 0600 on every start; another tool or a hand-made folder may not have).
    func permissionsCheck(_ directory: String) -> SelftestReport.Check {
        guard OwnerOnlyFiles.mode(of: directory) != nil else {
            return .init("storage.permissions", .fail, "\(directory) is missing")
        }
        // The whole tree: media lives in folders below (media/bottles/…), and another tool may
        // have left a file there that others can read.
        let found = OwnerOnlyFiles.exposed(under: directory)
        var exposed = found.prefix(8).map { entry in
            "\(entry.path == "." ? directory : entry.path) (mode \(String(entry.mode, radix: 8)))"
        }
        if found.count > 8 { exposed.append("and \(found.count - 8) more") }
        guard exposed.isEmpty else {
            return .init("storage.permissions", .fail,
                         "others can read the box's data: \(exposed.joined(separator: ", ")); driftd makes them owner-only on its next start, or: chmod -R go= \(directory)")
        }
        return .init("storage.permissions", .pass, "\(directory) and its files are the owner's only (0700/0600)")
    }

    func gpioChecks() async -> [SelftestReport.Check] {
        let driver: any GPIODriver
        switch config.gpio.backend {
        case .sim:
            let sim = SimulatedGPIODriver()
            _ = sim.addChip(name: "gpiochip0", label: config.gpio.chip, lineNames: BoxDevices.configuredLines(config))
            driver = sim
        case .libgpiod:
            driver = LibgpiodDriver()
        }
        let chip: GPIOChip
        do {
            chip = try GPIOChip.open(config.gpio.chip, driver: driver)
        } catch {
            let known = (try? GPIOChip.chips(driver: driver)) ?? []
            let listing = known.isEmpty ? "no GPIO chips on this machine" : "chips here: " + known.map { "\($0.name) (\($0.label))" }.joined(separator: ", ")
            return [.init("gpio.chip", .fail, "\(config.gpio.chip): \(error) — \(listing)")]
        }
        defer { chip.close() }
        var checks: [SelftestReport.Check] = [
            .init("gpio.chip", .pass, "\(chip.info.name) \"\(chip.info.label)\", \(chip.info.lineCount) lines, \(driver.backendDescription)"),
        ]
        let inputs: [(String, String)] = [
            ("buttons.presence", config.buttons.presence), ("buttons.keep_alive", config.buttons.keepAlive), ("rain.line", config.rain.line),
            ("e22.aux", config.e22.aux),
        ]
        for (name, line) in inputs {
            guard !line.isEmpty else { checks.append(.init(name, .skip, "not fitted")); continue }
            do {
                let request = try chip.requestInput(named: [line], consumer: "driftd-selftest", bias: .pullUp, activeLow: name.hasPrefix("buttons"))
                let level = try request.value()
                request.release()
                let shown = name.hasPrefix("buttons") ? (level ? "pressed" : "released") : (level ? "high" : "low")
                checks.append(.init(name, .pass, "\(line): \(shown)"))
            } catch {
                checks.append(.init(name, .fail, "\(line): \(describe(error))"))
            }
        }
        let outputs: [(String, String)] = [
            ("leds.status", config.leds.status), ("leds.bottle", config.leds.bottle), ("leds.radio", config.leds.radio),
            ("leds.gps", config.leds.gps), ("e22.m0", config.e22.m0), ("e22.m1", config.e22.m1),
        ]
        let ledClass = config.leds.kernelLEDs
            ? (config.gpio.backend == .sim ? BoxDevices.simulatedLEDClassRoot(config) : KernelLED.classRoot) : nil
        for (name, line) in outputs {
            guard !line.isEmpty else { checks.append(.init(name, .skip, "not fitted")); continue }
            if let ledClass, name.hasPrefix("leds."), let role = LEDRole(rawValue: String(name.dropFirst(5))),
               KernelLED.exists(LEDOutput.kernelName(role), root: ledClass) {
                checks.append(await kernelLEDCheck(name, led: LEDOutput.kernelName(role), root: ledClass))
                continue
            }
            do {
                let request = try chip.requestOutput(named: [line], consumer: "driftd-selftest")
                if name.hasPrefix("leds") {
                    // Walk the LED: on for a moment so the tester sees each one.
                    try request.set(true)
                    try? await Task.sleep(for: ledWalkStep)
                    try request.set(false)
                }
                request.release()
                checks.append(.init(name, .pass, name.hasPrefix("leds") ? "\(line): lit for \(ledWalkStep)" : "\(line): requested and released"))
            } catch {
                checks.append(.init(name, .fail, "\(line): \(describe(error))"))
            }
        }
        return checks
    }

    /// Walks a kernel LED (the board's `gpio-led` overlay): lit for a moment, then given back
    /// the pattern it had (a running daemon's heartbeat goes on).
    func kernelLEDCheck(_ name: String, led: String, root: String) async -> SelftestReport.Check {
        let patternPath = root + "/" + led + "/pattern"
        let previous = FileManager.default.contents(atPath: patternPath)
        do {
            let kernelLED = try KernelLED(name: led, root: root)
            try kernelLED.set(true)
            try? await Task.sleep(for: ledWalkStep)
            if let previous, kernelLED.canPlay {
                try previous.write(to: URL(fileURLWithPath: patternPath))
            } else {
                try kernelLED.set(false)
            }
            let how = kernelLED.canPlay ? "the kernel blinks it (pattern trigger)" : "no pattern trigger in this kernel: driftd blinks it"
            return .init(name, .pass, "kernel LED \(led): lit for \(ledWalkStep); \(how)")
        } catch {
            return .init(name, .fail, "kernel LED \(led): \(error) (the image's udev rule gives the gpio group its files, docs/leds-and-buttons.md)")
        }
    }

    func gpsCheck() async -> SelftestReport.Check {
        switch config.gps.kind {
        case .none: return .init("gps", .skip, "gps.kind = none")
        case .sim: return .init("gps", .pass, "simulated receiver")
        case .gpsd: return tcpCheck("gps", host: config.gps.gpsdAddress.host, port: config.gps.gpsdAddress.port, what: "gpsd")
        case .nmea where config.gps.baud == 0:
            // Automatic baud: try the rates the GPS service tries, report the one that speaks NMEA.
            let path = config.gps.port
            do {
                let found = try await BaudDetector().detect(path: path) { rate in
                    try SerialPorts.open(path: path, settings: SerialSettings(baudRate: rate))
                }
                found.port.close()
                return .init("gps", .pass, "\(path): NMEA seen at \(found.baud) baud (detected)")
            } catch {
                return .init("gps", .fail, "\(error)")
            }
        case .nmea:
            return await serialCheck("gps", path: config.gps.port, baud: config.gps.baud, expectNMEA: true)
        }
    }

    func radioCheck() async -> SelftestReport.Check {
        switch config.radio.kind {
        case .none: return .init("radio", .skip, "radio.kind = none")
        case .sim:
            // The simulated radio is a UDP port on the loopback medium: it must be free to bind
            // (taken: another box, or driftd itself — run selftest with the daemon stopped).
            do {
                let radio = try MeshSetup.radio(config)
                radio.close()
                return .init("radio", .pass, "simulated radio on UDP port \(config.sim.radioUDPPort)")
            } catch {
                return .init("radio", .fail, "\(error)")
            }
        case .e22:
            return await e22Check()
        case .meshtastic:
            return await meshtasticCheck()
        }
    }

    /// The Meshtastic node answers the config handshake: its node id and firmware version.
    func meshtasticCheck() async -> SelftestReport.Check {
        var configuration = MeshSetup.meshtasticConfiguration(config)
        configuration.handshakeTimeout = meshtasticListen
        configuration.reconnectDelay = .milliseconds(500)
        configuration.maximumReconnectDelay = .seconds(2)
        let radio = MeshtasticRadio(configuration: configuration)
        async let connection: Void = radio.run()
        let check: SelftestReport.Check
        do {
            let node = try await radio.connectedNode(within: meshtasticListen)
            let firmware = node.firmwareVersion.isEmpty ? "unknown (no metadata)" : node.firmwareVersion
            check = .init("radio", .pass, "Meshtastic node \(node.id) answers on \(node.path), firmware \(firmware)")
        } catch {
            check = .init("radio", .fail, "\(error)")
        }
        radio.close()
        await connection
        return check
    }

    /// Programs the E22 as the daemon would, reads the registers back and the ambient noise;
    /// a strapped module (``strappedE22Check(_:)``) only answers the ambient-noise read.
    func e22Check() async -> SelftestReport.Check {
        let radio: E22Radio
        do {
            radio = try MeshSetup.e22Radio(config, answerTimeout: e22AnswerTimeout)
        } catch {
            return .init("radio", .fail, "\(error)")
        }
        defer { radio.close() }
        do {
            try await radio.start()
        } catch E22Error.portBusy where radio.isStrapped {
            // Nothing to say about a module whose registers cannot be read while the daemon has it.
            return .init("radio", .skip, "E22 (M0/M1 strapped) on \(config.radio.port): the port is held by another process "
                + "(a running driftd); stop it to check the module")
        } catch {
            return .init("radio", .fail, "\(config.radio.port): \(error)")
        }
        if radio.isStrapped { return await strappedE22Check(radio) }
        let read = radio.registersReadBack ?? radio.configuration.effectiveRegisters
        let band = radio.configuration.band
        let frequency = String(format: "%.3f", band.frequencyMHz(channel: Int(read.channel)))
        var detail = "E22 registers read back as configured (addr \(read.address), net id \(read.netID), channel \(read.channel) = \(frequency) MHz, "
            + "\(read.airRate), \(read.txPowerDBm) dBm, sub-packet \(read.subPacketBytes) B, UART \(read.baudRate) baud)"
        if let noise = try? await radio.ambientNoiseDBm() { detail += "; ambient noise \(Int(noise)) dBm" }
        return .init("radio", .pass, detail)
    }

    /// M0/M1 strapped to normal mode: the registers cannot be reached, but a module that
    /// answers the ambient-noise read at `radio.baud` is there, wired, at that baud. No answer
    /// is a skip, not a failure: the read may be off in the module (REG1 bit 5), and then its
    /// 6 bytes went out as a packet.
    func strappedE22Check(_ radio: E22Radio) async -> SelftestReport.Check {
        let program = "with the jumpers in configuration mode (M0 low, M1 high) `driftd e22 program --check` compares the registers "
            + "with the config, without --check programs them (docs/e22.md)"
        do {
            let noise = try await radio.ambientNoiseDBm()
            return .init("radio", .pass, "E22 (M0/M1 strapped) answers on \(config.radio.port) at \(config.radio.baud) baud: ambient noise "
                + "\(Int(noise)) dBm; its registers cannot be read in normal mode — \(program)")
        } catch {
            return .init("radio", .skip, "E22 (M0/M1 strapped) did not answer the ambient-noise read on \(config.radio.port) at "
                + "\(config.radio.baud) baud: the module's UART baud may differ from radio.baud, the module may be missing, or its "
                + "ambient-noise read is off (REG1 bit 5); \(program)")
        }
    }

    func weatherCheck() async -> SelftestReport.Check {
        guard config.i2c.bme280, !config.i2c.bus.isEmpty else { return .init("bme280", .skip, "not fitted") }
        let device: any I2CDevice
        if config.i2c.bus == "sim" {
            device = SimulatedBME280(bus: "sim", address: UInt8(config.i2c.bme280Address)).device
        } else {
            do {
                device = try LinuxI2CDevice(bus: config.i2c.bus, address: UInt8(config.i2c.bme280Address))
            } catch {
                return .init("bme280", .fail, "\(error)")
            }
        }
        let sensor = BME280(device: device)
        do {
            try await sensor.start(clock: ContinuousClock())
            let reading = try await sensor.measure(clock: ContinuousClock())
            if let problem = reading.implausibility {
                return .init("bme280", .fail, "implausible reading: \(problem)")
            }
            return .init("bme280", .pass, String(format: "chip id 0x60 on %@ at 0x%02x: %.1f °C, %.1f hPa, %.0f %%", device.bus, device.address, reading.celsius, reading.hectopascals, reading.relativeHumidity))
        } catch {
            return .init("bme280", .fail, "\(error)")
        }
    }

    func oneWireChecks() -> [SelftestReport.Check] {
        guard config.oneWire.ds18b20 else { return [.init("ds18b20", .skip, "not fitted")] }
        let paths = DS18B20.devicePaths(in: config.oneWire.devicesDir)
        guard !paths.isEmpty else { return [.init("ds18b20", .fail, "no 28-* device in \(config.oneWire.devicesDir) (is the w1-gpio overlay on?)")] }
        return paths.map { path in
            do {
                let reading = try DS18B20.read(path: path)
                return .init("ds18b20", .pass, "\(path): \(reading)")
            } catch {
                return .init("ds18b20", .fail, "\(path): \(error)")
            }
        }
    }

    func notifyCheck() -> SelftestReport.Check {
        guard let address = environment["NOTIFY_SOCKET"], !address.isEmpty else {
            return .init("systemd.notify", .skip, "NOTIFY_SOCKET not set (not started by systemd)")
        }
        if address.hasPrefix("@") { return .init("systemd.notify", .pass, "abstract socket \(address)") }
        return FileManager.default.fileExists(atPath: address)
            ? .init("systemd.notify", .pass, address)
            : .init("systemd.notify", .fail, "\(address) does not exist")
    }

    // MARK: - Helpers

    func serialCheck(_ name: String, path: String, baud: Int, expectNMEA: Bool) async -> SelftestReport.Check {
        guard path != "auto" else {
            return .init(name, .skip, "port = auto: pick one from the serial port list below")
        }
        let port: any SerialPort
        // A port closed a moment ago can still be locked: a process being spawned elsewhere holds
        // a copy of the descriptor until its exec, and a daemon just stopped may still be closing.
        let busyUntil = ContinuousClock.now + .seconds(3)
        while true {
            do {
                port = try SerialPorts.open(path: path, settings: SerialSettings(baudRate: baud))
                break
            } catch {
                if case .busy = error, ContinuousClock.now < busyUntil {
                    try? await Task.sleep(for: .milliseconds(100))
                    continue
                }
                return .init(name, .fail, "\(path): \(error)")
            }
        }
        defer { port.close() }
        guard expectNMEA else { return .init(name, .pass, "\(path) opens at \(baud) baud (\(port.backend))") }
        var seen: [UInt8] = []
        let deadline = ContinuousClock.now + gpsListen
        while ContinuousClock.now < deadline, seen.count < 4096 {
            let remaining = deadline - ContinuousClock.now
            guard let bytes = try? await port.read(upTo: 512, timeout: remaining), !bytes.isEmpty else { break }
            seen += bytes
            if Self.containsNMEA(seen) {
                return .init(name, .pass, "\(path) at \(baud) baud: NMEA seen")
            }
        }
        return .init(name, .fail, seen.isEmpty
            ? "\(path) opens but nothing arrived within \(gpsListen) (wiring, baud rate \(baud)?)"
            : "\(path): \(seen.count) bytes but no NMEA sentence (baud rate \(baud)?)")
    }

    /// Whether `bytes` hold something that looks like an NMEA sentence start (`$GPGGA,` …).
    static func containsNMEA(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 7 else { return false }
        for index in 0..<(bytes.count - 6) where bytes[index] == UInt8(ascii: "$") {
            let body = bytes[(index + 1)..<(index + 6)]
            if body.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
               bytes[index + 6] == UInt8(ascii: ",") {
                return true
            }
        }
        return false
    }

    func tcpCheck(_ name: String, host: String, port: Int, what: String) -> SelftestReport.Check {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else {
            return .init(name, .fail, "\(what) address \(host):\(port) does not resolve")
        }
        defer { freeaddrinfo(result) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return .init(name, .fail, "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        if connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 {
            return .init(name, .pass, "\(what) answers on \(host):\(port)")
        }
        return .init(name, .fail, "\(what) on \(host):\(port): \(String(cString: strerror(errno)))")
    }

    func serialPorts() -> [SelftestReport.SerialPortLine] {
        let ports = (try? SerialPorts.list()) ?? []
        return ports.map { .init(path: $0.path, transport: $0.transport.rawValue, usbID: $0.usbID, description: $0.description) }
    }

    func describe(_ error: GPIOError) -> String {
        if error.kind == .lineBusy { return "\(error) — is driftd running? Stop it before selftest." }
        return "\(error)"
    }
}
