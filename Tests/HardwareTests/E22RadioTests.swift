import DriftSystem
import Foundation
import Hardware
import TestSupport
import Testing

/// One E22Radio driving one E22Emulator over a real pty, with mode lines on a simulated
/// GPIO chip and the emulator's air side on loopback UDP.
final class E22Rig: Sendable {
    static let channel = SimulatedRadioTransmitter.Channel(
        frequencyMHz: 868.125, spreadingFactor: E22AirRate.kbps62_5.spreadingFactor, bandwidthHz: E22AirRate.kbps62_5.bandwidthHz)
    static let medium = SimulatedRadioMedium(rangeMeters: 1_000)

    let pty: PseudoTerminalPair
    let gpio: SimulatedGPIODriver
    let emulator: E22Emulator
    let radio: E22Radio
    let transmitter: SimulatedRadioTransmitter

    /// Registers for the tests: channel 18 (868.125 MHz), 62.5 kbps so packets are short on the air.
    static func registers(subPacket: Int = 240, baud: Int = 9600) -> E22Registers {
        var registers = E22Registers()
        registers.address = 0x0102
        registers.netID = 7
        registers.channel = 18
        registers.airRate = .kbps62_5
        registers.subPacketBytes = subPacket
        registers.baudRate = baud
        registers.txPowerDBm = 13
        return registers
    }

    static func transmitter(at metres: Double) -> SimulatedRadioTransmitter {
        let degrees = metres / (111_320 * cos(52.4731 * Double.pi / 180))
        return SimulatedRadioTransmitter(latitude: 52.4731, longitude: 13.4019 + degrees, txPowerDBm: 13, channel: channel)
    }

    init(
        air: SimulatedRadio, transmitter: SimulatedRadioTransmitter, registers: E22Registers = E22Rig.registers(),
        auxWired: Bool = true, commandTimeout: Duration = .seconds(30), rssiTimeout: Duration = .seconds(30), auxTimeout: Duration = .seconds(30),
        probeInterval: Duration? = nil, configure: (E22Emulator) -> Void = { _ in }
    ) throws {
        pty = try PseudoTerminalPair()
        gpio = SimulatedGPIODriver()
        _ = gpio.addChip(name: "gpiochip0", label: "pinctrl-test", lineNames: ["E22_M0", "E22_M1", "E22_AUX"])
        self.transmitter = transmitter
        let master = try #require(pty.masterDescriptor)
        emulator = E22Emulator(
            master: master, gpio: gpio, wiring: .init(m0: "E22_M0", m1: "E22_M1", aux: auxWired ? "E22_AUX" : nil), air: air)
        configure(emulator)
        let chip = try GPIOChip.open("name:gpiochip0", driver: gpio)
        let lines = try E22Radio.Lines.request(on: chip, m0: "E22_M0", m1: "E22_M1", aux: auxWired ? "E22_AUX" : nil)
        radio = try E22Radio(
            configuration: .init(portPath: pty.slavePath, registers: registers, commandTimeout: commandTimeout, rssiTimeout: rssiTimeout,
                                 auxTimeout: auxTimeout, modeSwitchDelay: .milliseconds(30), probeInterval: probeInterval),
            lines: lines)
        emulator.start()
    }

    /// A rig whose air side hears nobody.
    convenience init(registers: E22Registers = E22Rig.registers(), auxWired: Bool = true, commandTimeout: Duration = .seconds(30),
                     rssiTimeout: Duration = .seconds(30), auxTimeout: Duration = .seconds(30),
                     probeInterval: Duration? = nil, configure: (E22Emulator) -> Void = { _ in }) throws {
        let transmitter = E22Rig.transmitter(at: 0)
        let air = try SimulatedRadio(configuration: .init(port: 0, peers: [], transmitter: transmitter, medium: E22Rig.medium))
        try self.init(air: air, transmitter: transmitter, registers: registers, auxWired: auxWired, commandTimeout: commandTimeout,
                      rssiTimeout: rssiTimeout, auxTimeout: auxTimeout, probeInterval: probeInterval, configure: configure)
    }

    func shutDown() {
        radio.close()
        emulator.stop()
        pty.closeMaster()
    }
}

/// Opens the pty slave, trying again while it is busy: a process another test is spawning can
/// hold a copy of a just-closed descriptor (and its `flock`) until it execs.
func e22OpenSlave(_ path: String, baud: Int) async throws -> any SerialPort {
    let deadline = ContinuousClock.now + .seconds(30)
    while true {
        do {
            return try SerialPorts.open(path: path, settings: SerialSettings(baudRate: baud))
        } catch {
            guard case .busy = error, ContinuousClock.now < deadline else { throw error }
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// Runs `body` with a limit, so a bug fails the test instead of hanging it.
func e22Within<T: Sendable>(_ limit: Duration = .seconds(120), _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await gpioAwait(Task { try await body() }, within: limit)
}

@Suite("E22 driver against the emulator (real pty, simulated GPIO, loopback UDP)")
struct E22RadioTests {
    @Test("start writes the registers, reads them back and enters normal mode")
    func configures() async throws {
        let rig = try E22Rig()
        defer { rig.shutDown() }
        try await e22Within { try await rig.radio.start() }
        let expected = rig.radio.configuration.effectiveRegisters
        #expect(Array(rig.emulator.registers.bytes.prefix(7)) == Array(expected.bytes.prefix(7)))
        #expect(rig.radio.registersReadBack?.channel == 18)
        #expect(rig.radio.registersReadBack?.address == 0x0102)
        #expect(rig.radio.registersReadBack?.packetRSSIEnabled == true)
        #expect(rig.radio.registersReadBack?.fixedPoint == false)
        #expect(rig.radio.isReady)
        #expect(rig.emulator.mode == .normal)
        #expect(rig.radio.maximumFrameBytes == 240)
    }

    @Test("a register the module does not take fails the start, naming the register")
    func mismatch() async throws {
        let rig = try E22Rig { $0.ignoreWrites(toRegister: 5) }
        defer { rig.shutDown() }
        let error = await #expect(throws: E22Error.self) { try await e22Within { try await rig.radio.start() } }
        #expect(error == .registerMismatch(register: "REG2 (05H)", wrote: 18, read: 0))
        #expect(!rig.radio.isReady)
    }

    @Test("program switches wired mode lines itself: registers written and read back, the module left in normal mode")
    func programWired() async throws {
        let rig = try E22Rig()
        defer { rig.shutDown() }
        let result = try await e22Within { try await rig.radio.program(write: true) }
        let expected = rig.radio.configuration.effectiveRegisters
        #expect(result.before == E22Registers(bytes: Array(E22Registers().bytes.prefix(E22Registers.readableCount))))
        #expect(result.after.map { Array($0.bytes.prefix(7)) } == Array(expected.bytes.prefix(7)))
        #expect(Array(rig.emulator.registers.bytes.prefix(7)) == Array(expected.bytes.prefix(7)))
        #expect(rig.emulator.mode == .normal)
        #expect(!rig.radio.isReady)
        // The radio starts as always afterwards.
        try await e22Within { try await rig.radio.start() }
        #expect(rig.radio.isReady)
    }

    @Test("two modules on one medium exchange frames both ways, with the medium's RSSI")
    func exchange() async throws {
        let aAt = E22Rig.transmitter(at: 0)
        let bAt = E22Rig.transmitter(at: 300)
        // B's port first, then A pointing at it, then B again on the same port pointing at A.
        let probe = try SimulatedRadio(configuration: .init(port: 0, peers: [], transmitter: bAt, medium: E22Rig.medium))
        let bPort = probe.port
        probe.close()
        let airA = try SimulatedRadio(configuration: .init(port: 0, peers: [("127.0.0.1", bPort)], transmitter: aAt, medium: E22Rig.medium))
        let airB = try SimulatedRadio(configuration: .init(port: bPort, peers: [("127.0.0.1", airA.port)], transmitter: bAt, medium: E22Rig.medium))
        let a = try E22Rig(air: airA, transmitter: aAt)
        defer { a.shutDown() }
        let b = try E22Rig(air: airB, transmitter: bAt, auxWired: false)
        defer { b.shutDown() }
        try await e22Within { try await a.radio.start() }
        try await e22Within { try await b.radio.start() }
        let expected = try #require(E22Rig.medium.reception(from: aAt, to: bAt, randomDraw: 0.5)).rssi

        let there = (0..<200).map { UInt8(truncatingIfNeeded: $0 * 13 + 1) }
        let heardByB = try await e22Within {
            async let heard = b.radio.receive()
            try await a.radio.transmit(there, airtime: .milliseconds(20))
            return try await heard
        }
        #expect(heardByB?.bytes == there)
        #expect(abs((heardByB?.rssi ?? 0) - expected) <= 0.6)

        let back: [UInt8] = Array("hello from b".utf8)
        let heardByA = try await e22Within {
            async let heard = a.radio.receive()
            try await b.radio.transmit(back, airtime: .milliseconds(20))
            return try await heard
        }
        #expect(heardByA?.bytes == back)
        #expect(abs((heardByA?.rssi ?? 0) - expected) <= 0.6)
        #expect(a.radio.counters.sent == 1 && a.radio.counters.received == 1)
        #expect(b.emulator.counters.packetsSent == 1)
    }

    @Test("frames above the sub-packet size are refused, never cut", arguments: [240, 128, 64, 32])
    func frameLimit(subPacket: Int) async throws {
        let rig = try E22Rig(registers: E22Rig.registers(subPacket: subPacket))
        defer { rig.shutDown() }
        #expect(rig.radio.maximumFrameBytes == subPacket)
        let error = await #expect(throws: E22Error.self) {
            try await rig.radio.transmit([UInt8](repeating: 0x55, count: subPacket + 1), airtime: .milliseconds(1))
        }
        #expect(error == .frameTooLarge(bytes: subPacket + 1, maximum: subPacket))
        #expect(rig.emulator.counters.packetsSent == 0)
    }

    @Test("ambient noise reads in normal mode")
    func ambientNoise() async throws {
        let rig = try E22Rig()
        defer { rig.shutDown() }
        rig.emulator.setAmbientNoise(dBm: -97)
        let noise = try await e22Within { try await rig.radio.ambientNoiseDBm() }
        #expect(noise == -97)
    }

    @Test("a module that stops answering: no answer to C1 within the timeout (AUX not wired)")
    func silentAtStart() async throws {
        let rig = try E22Rig(auxWired: false, commandTimeout: .milliseconds(500)) { $0.stopAnswering() }
        defer { rig.shutDown() }
        let error = await #expect(throws: E22Error.self) { try await e22Within { try await rig.radio.start() } }
        #expect(error == .noAnswer(command: "C0 00 09", timeout: .milliseconds(500)))
    }

    @Test("a module that stops answering in normal mode: the RSSI read times out, a transmit sees AUX stuck low, then it recovers")
    func silentLater() async throws {
        // Generous timeout for the start (the full suite may starve the emulator), short for the RSSI read that is meant to fail.
        let rig = try E22Rig(rssiTimeout: .milliseconds(500), auxTimeout: .seconds(2))
        defer { rig.shutDown() }
        try await e22Within { try await rig.radio.start() }
        rig.emulator.stopAnswering()
        let noAnswer = await #expect(throws: E22Error.self) { try await e22Within { try await rig.radio.ambientNoiseDBm() } }
        #expect(noAnswer == .noAnswer(command: "C0 C1 C2 C3 (RSSI read)", timeout: .milliseconds(500)))
        // The failure is reported once by receive, then the radio starts again.
        let reported = await #expect(throws: E22Error.self) { try await e22Within { try await rig.radio.receive() } }
        #expect(reported == noAnswer)
        let stuck = await #expect(throws: E22Error.self) {
            try await e22Within { try await rig.radio.transmit([1, 2, 3], airtime: .milliseconds(1)) }
        }
        #expect(stuck == .auxStuckLow(timeout: .seconds(2), during: "switch to configuration mode"))
        rig.emulator.resumeAnswering()
        try await e22Within { try await rig.radio.start() }
        #expect(rig.radio.isReady)
        #expect(rig.radio.counters.starts == 3)
    }

    @Test("with no traffic the reader probes the module; a silent module is thrown by receive")
    func probe() async throws {
        let rig = try E22Rig(rssiTimeout: .milliseconds(500), probeInterval: .milliseconds(300))
        defer { rig.shutDown() }
        try await e22Within { try await rig.radio.start() }
        rig.emulator.stopAnswering()
        let error = await #expect(throws: E22Error.self) { try await e22Within { try await rig.radio.receive() } }
        #expect(error == .noAnswer(command: "C0 C1 C2 C3 (RSSI read)", timeout: .milliseconds(500)))
        #expect(!rig.radio.isReady)
    }

    @Test("the UART going away is thrown by receive; close ends a pending receive with nil")
    func uartGoneAndClose() async throws {
        let rig = try E22Rig()
        defer { rig.shutDown() }
        try await e22Within { try await rig.radio.start() }
        rig.emulator.stop()
        rig.pty.closeMaster()
        let error = await #expect(throws: E22Error.self) { try await e22Within { try await rig.radio.receive() } }
        if case .io = error {} else { Issue.record("expected an io error, got \(String(describing: error))") }

        let other = try E22Rig()
        defer { other.shutDown() }
        try await e22Within { try await other.radio.start() }
        let pending = Task { try await other.radio.receive() }
        #expect(try await eventually { other.radio.isReceiving })
        other.radio.close()
        let result = try await gpioAwait(pending, within: .seconds(60))
        #expect(result == nil)
    }

    @Test("the emulator answers FF FF FF to a bad command and ignores commands not sent at 9600 baud")
    func emulatorProtocol() async throws {
        let pty = try PseudoTerminalPair()
        defer { pty.closeMaster() }
        let gpio = SimulatedGPIODriver()
        _ = gpio.addChip(name: "gpiochip0", label: "pinctrl-test", lineNames: ["M0", "M1"])
        let air = try SimulatedRadio(configuration: .init(port: 0, peers: [], transmitter: E22Rig.transmitter(at: 0), medium: E22Rig.medium))
        let emulator = E22Emulator(master: try #require(pty.masterDescriptor), gpio: gpio, wiring: .init(m0: "M0", m1: "M1", aux: nil), air: air)
        emulator.start()
        defer { emulator.stop() }
        let chip = try GPIOChip.open("name:gpiochip0", driver: gpio)
        let m1 = try chip.requestOutput(named: ["M1"], initial: [true])
        defer { m1.release() }
        #expect(emulator.mode == .configuration)

        let fast = try await e22OpenSlave(pty.slavePath, baud: 115_200)
        try await fast.write([0xC1, 0x00, 0x07])
        let nothing = try await e22Within { try await fast.read(upTo: 64, timeout: .milliseconds(500)) }
        #expect(nothing.isEmpty)
        fast.close()
        #expect(emulator.counters.wrongBaud == 1)

        let port = try await e22OpenSlave(pty.slavePath, baud: 9600)
        defer { port.close() }
        try await port.write([0xC1, 0x07, 0x05])
        let refused = try await e22Within { try await port.read(upTo: 64, timeout: .seconds(5)) }
        #expect(refused == [0xFF, 0xFF, 0xFF])
        try? await Task.sleep(for: .milliseconds(50))
        try await port.write([0xC1, 0x00, 0x09])
        var answer: [UInt8] = []
        while answer.count < 12 {
            let more = try await e22Within { try await port.read(upTo: 64, timeout: .seconds(5)) }
            if more.isEmpty { break }
            answer += more
        }
        #expect(answer == [0xC1, 0x00, 0x09] + E22Registers().bytes)
    }
}
