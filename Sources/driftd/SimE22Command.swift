import ArgumentParser
import DriftConfig
import DriftDaemon
import Foundation
import Hardware

extension SimCommand {
    /// `driftd sim e22 --config FILE [--link PATH]`: a software E22 module strapped to normal
    /// mode behind a pseudo-terminal, its air side on the simulated radio medium.
    ///
    /// For the VM boot test: QEMU opens the printed pty (or `--link`) as the guest's UART, so
    /// a box on `radio.kind = "e22"` with `e22.m0 = e22.m1 = ""` talks to `driftd run`
    /// boxes on the simulated medium. The config is a sim-board file: `[sim]` gives the
    /// module's position, UDP port and peers, `[radio]` the frequency, baud and TX power,
    /// `[e22]` the air rate, sub-packet size, address and net id (the registers the module
    /// holds, as if configured before it was strapped, with the packet RSSI byte on).
    struct E22: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "e22",
            abstract: "A software E22 module (M0/M1 strapped to normal mode) on a pty, on the simulated radio medium.",
            discussion: """
                Prints the pty's path, then one line of counters whenever they change. Runs until killed. \
                The simulated boxes that should hear it list 127.0.0.1:<sim.radio_udp_port> in their sim.radio_peers \
                and use radio.frequency_mhz, spreading_factor and bandwidth_khz of the E22 air rate (docs/e22.md).
                """)

        @Option(help: "Sim-board config: [sim] position, radio_udp_port, radio_peers; [radio] frequency, baud; [e22] registers.")
        var config: String

        @Option(help: "Make this path a symlink to the pty (replaced if it exists).")
        var link: String?

        /// One line on standard output, unbuffered (the test reads it while the module runs).
        private func say(_ line: String) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }

        func run() async throws {
            let loaded: DriftConfiguration
            do {
                loaded = try ConfigLoader.load(path: config).configuration
            } catch {
                throw ValidationError("\(config): \(error)")
            }
            guard let rate = E22AirRate(kilobitsPerSecond: loaded.e22.airRateKbps) else {
                throw ValidationError("e22.air_rate_kbps = \(loaded.e22.airRateKbps) is not an E22 air rate")
            }
            let band = E22Band(frequencyMHz: loaded.radio.frequencyMHz)
            guard let channel = band.channel(frequencyMHz: loaded.radio.frequencyMHz) else {
                throw ValidationError("radio.frequency_mhz = \(loaded.radio.frequencyMHz) is not an E22 channel")
            }
            var registers = E22Registers()
            registers.address = UInt16(clamping: loaded.e22.address)
            registers.netID = UInt8(clamping: loaded.e22.netID)
            registers.baudRate = loaded.radio.baud
            registers.airRate = rate
            registers.subPacketBytes = loaded.e22.subPacketBytes
            registers.channel = UInt8(channel)
            registers.txPowerDBm = E22Registers.nearestTxPower(to: loaded.radio.txPowerDBm)
            // What the driver would have written before the straps went on.
            registers = E22Radio.Configuration(portPath: "", registers: registers, band: band).effectiveRegisters

            let sim = loaded.sim
            let transmitter = SimulatedRadioTransmitter(
                latitude: sim.latitude, longitude: sim.longitude, txPowerDBm: registers.txPowerDBm,
                channel: .init(frequencyMHz: band.frequencyMHz(channel: channel), spreadingFactor: rate.spreadingFactor,
                               bandwidthHz: rate.bandwidthHz))
            let air = try SimulatedRadio(configuration: .init(
                port: sim.radioUDPPort, peers: sim.radioPeers.map { ($0.host, $0.port) }, transmitter: transmitter,
                medium: SimulatedRadioMedium(sim)))
            let module = try E22StrappedModule(registers: registers, air: air)
            defer { module.stop() }
            if let link {
                try? FileManager.default.removeItem(atPath: link)
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: module.slavePath)
            }
            say("e22 module on \(module.slavePath)\(link.map { " (link \($0))" } ?? ""), channel \(channel) = \(band.frequencyMHz(channel: channel)) MHz, "
                + "\(rate) (SF\(rate.spreadingFactor), \(rate.bandwidthHz / 1_000) kHz), UART \(registers.baudRate) baud, air on 127.0.0.1:\(air.port)")
            var last = module.emulator.counters
            while true {
                try await Task.sleep(for: .seconds(1))
                let now = module.emulator.counters
                if now != last {
                    say("e22 packets sent \(now.packetsSent), heard \(now.packetsHeard), dropped bytes \(now.droppedBytes)")
                    last = now
                }
            }
        }
    }
}
