import Foundation
import Hardware
import TestSupport
import Testing

/// `driftd e22 program` against a software module strapped to normal mode on a real pty, whose
/// jumpers the test moves as an installer would.
@Suite("driftd e22 program: a strapped module set up through its jumpers")
struct E22ProgramCommandTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    /// What `board/x86-vm.toml` asks of its E22 (channel 18, 2.4 kbps, 9600 baud, 240-byte
    /// sub-packets, 13 dBm nearest its 14 dBm), as the driver programs it.
    static func wanted() -> E22Registers {
        var registers = E22Registers()
        registers.channel = 18
        registers.airRate = .kbps2_4
        registers.baudRate = 9600
        registers.subPacketBytes = 240
        registers.txPowerDBm = 13
        return E22Radio.Configuration(portPath: "", registers: registers).effectiveRegisters
    }

    /// The same with Ebyte's factory default for the packet RSSI byte and the ambient-noise read: off.
    static func factory() -> E22Registers {
        var registers = wanted()
        registers.packetRSSIEnabled = false
        registers.ambientNoiseEnabled = false
        return registers
    }

    /// `board/x86-vm.toml` (M0/M1 strapped) with its E22 on `port`.
    static func config(in directory: TemporaryDirectory, port: String) throws -> String {
        var text = try String(contentsOfFile: DriftdProcess.packageRoot + "/board/x86-vm.toml", encoding: .utf8)
        text = text.replacingOccurrences(of: "port = \"/dev/ttyS2\"", with: "port = \"\(port)\"")
        #expect(text.contains("port = \"\(port)\""))
        let path = directory.appending("driftd.toml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("--check reads, writes nothing, exits 1; program writes and names what changed; in normal mode it says to move the jumpers",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func programStrapped() async throws {
        let directory = try TemporaryDirectory(prefix: "e22prog")
        defer { directory.remove() }
        let air = try SimulatedRadio(configuration: .init(port: 0, peers: [], transmitter: E22Rig.transmitter, medium: E22Rig.medium))
        let module = try E22StrappedModule(registers: Self.factory(), air: air)
        defer { module.stop() }
        let config = try Self.config(in: directory, port: module.slavePath)

        // Jumpers still in normal mode: nothing answers the read, nothing is written.
        let normal = try await DriftdProcess.runToCompletion(["e22", "program", "--config", config])
        #expect(normal.status == 1, "\(normal.stdout)\(normal.stderr)")
        #expect(normal.stderr.contains("not in configuration mode"), "\(normal.stderr)")
        #expect(module.emulator.registers == Self.factory())
        // The module sent that read as a packet (normal mode) before the jumpers move: on a loaded
        // CPU it could still hold the bytes and take them with the next read as one bad command.
        #expect(try await eventually(within: .seconds(60)) { module.emulator.counters.packetsSent == 1 })

        module.setJumpers(.configuration)
        // The module answers from this test process, on a loaded CPU: 30 s to answer, not the driver's 1 s.
        let check = try await DriftdProcess.runToCompletion(["e22", "program", "--config", config, "--check", "--answer-timeout", "30"])
        #expect(check.status == 1, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("REG3 (06H)    03      83  differs"), "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("packet RSSI byte off → on"), "\(check.stdout)")
        #expect(check.stdout.contains("nothing written"), "\(check.stdout)")
        #expect(module.emulator.registers == Self.factory())

        let program = try await DriftdProcess.runToCompletion(["e22", "program", "--config", config, "--answer-timeout", "30"])
        #expect(program.status == 0, "\(program.stdout)\(program.stderr)")
        #expect(program.stdout.contains("read back as the configuration asks"), "\(program.stdout)")
        #expect(program.stdout.contains("set the jumpers back to normal mode"), "\(program.stdout)")
        #expect(module.emulator.registers == Self.wanted())

        // A running daemon holds the UART: said so, nothing done.
        let held = try SerialPorts.open(path: module.slavePath, settings: SerialSettings(baudRate: 9600))
        let busy = try await DriftdProcess.runToCompletion(["e22", "program", "--config", config])
        held.close()
        #expect(busy.status == 1, "\(busy.stdout)\(busy.stderr)")
        #expect(busy.stderr.contains("held by another process") && busy.stderr.contains("stop it first"), "\(busy.stderr)")

        let again = try await DriftdProcess.runToCompletion(["e22", "program", "--config", config, "--check", "--answer-timeout", "30"])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(again.stdout.contains("the module holds what the configuration asks for"), "\(again.stdout)")
        #expect(!again.stdout.contains("differs"), "\(again.stdout)")
    }

    @Test("a board without an E22 is refused", .enabled(if: binaryBuilt, "driftd binary not built"))
    func noE22() async throws {
        let result = try await DriftdProcess.runToCompletion(["e22", "program", "--config", "board/sim.toml"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("there is no E22 to program"), "\(result.stderr)")
    }
}

/// The software module's air side: alone on the simulated medium at the x86-vm board's channel.
private enum E22Rig {
    static let transmitter = SimulatedRadioTransmitter(
        latitude: 52.4731, longitude: 13.4019, txPowerDBm: 13,
        channel: .init(frequencyMHz: 868.125, spreadingFactor: E22AirRate.kbps2_4.spreadingFactor, bandwidthHz: E22AirRate.kbps2_4.bandwidthHz))
    static let medium = SimulatedRadioMedium(rangeMeters: 1_000)
}
