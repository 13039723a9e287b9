@testable import DriftDaemon
import DriftConfig
import Foundation
import Hardware
import TestSupport
import Testing

/// `driftd selftest` with an E22 whose M0/M1 are strapped: a software module on a real pty.
@Suite("selftest: E22 strapped to normal mode")
struct SelftestE22StrappedTests {
    func config(port: String, dataDir: String) throws -> DriftConfiguration {
        var config = try ConfigLoader(systemBoardDirectories: []).load(
            text: DriftConfiguration.embeddedDefaultText, fileName: "test.toml", baseDirectory: nil).configuration.applying(dataDirectory: dataDir)
        config.radio.kind = .e22
        config.radio.port = port
        config.e22.m0 = ""
        config.e22.m1 = ""
        config.e22.aux = ""
        config.radio.frequencyMHz = 869.125
        return config
    }

    /// A strapped module holding `registers`, alone on the simulated medium.
    func module(ambientNoiseRead: Bool) throws -> E22StrappedModule {
        let transmitter = SimulatedRadioTransmitter(latitude: 52.47, longitude: 13.40, txPowerDBm: 13,
                                                    channel: .init(frequencyMHz: 869.125, spreadingFactor: 9, bandwidthHz: 125_000))
        let air = try SimulatedRadio(configuration: .init(port: 0, peers: [], transmitter: transmitter, medium: SimulatedRadioMedium(rangeMeters: 1_000)))
        var registers = E22Registers()
        registers.channel = 19
        registers.packetRSSIEnabled = true
        registers.ambientNoiseEnabled = ambientNoiseRead
        return try E22StrappedModule(registers: registers, air: air)
    }

    @Test("a module that answers the ambient-noise read passes; one whose read is off is skipped with what to do, never failed")
    func strappedCheck() async throws {
        let directory = try TemporaryDirectory(prefix: "selftest")
        defer { directory.remove() }

        let answering = try module(ambientNoiseRead: true)
        defer { answering.stop() }
        answering.emulator.setAmbientNoise(dBm: -104)
        // The software module shares the CPU with the suite: it gets longer than a module's second to answer.
        var patient = Selftest(config: try config(port: answering.slavePath, dataDir: directory.path), environment: [:])
        patient.e22AnswerTimeout = .seconds(30)
        let pass = await patient.radioCheck()
        #expect(pass.status == .pass, "\(pass.detail)")
        #expect(pass.detail.contains("answers on \(answering.slavePath) at 9600 baud: ambient noise -104 dBm"), "\(pass.detail)")
        #expect(pass.detail.contains("driftd e22 program --check"), "\(pass.detail)")

        let silent = try module(ambientNoiseRead: false)
        defer { silent.stop() }
        let skip = await Selftest(config: try config(port: silent.slavePath, dataDir: directory.path), environment: [:]).radioCheck()
        #expect(skip.status == .skip, "\(skip.detail)")
        #expect(skip.detail.contains("did not answer the ambient-noise read"), "\(skip.detail)")
        #expect(skip.detail.contains("REG1 bit 5"), "\(skip.detail)")

        // The daemon holds the port (as in the VM test, where the selftest runs beside it): a skip, not a failure.
        let held = try SerialPorts.open(path: answering.slavePath, settings: SerialSettings(baudRate: 9600))
        defer { held.close() }
        let busy = await Selftest(config: try config(port: answering.slavePath, dataDir: directory.path), environment: [:]).radioCheck()
        #expect(busy.status == .skip, "\(busy.detail)")
        #expect(busy.detail.contains("strapped") && busy.detail.contains("held by another process"), "\(busy.detail)")
    }
}
