import ArgumentParser
import DriftMesh
import Foundation

/// `driftd mesh …`: LoRa mesh tools.
struct MeshCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mesh",
        abstract: "The running daemon's mesh (send, inbox, status) and LoRa tools (time on air).",
        subcommands: [MeshSend.self, MeshInboxCommand.self, MeshStatusCommand.self, MeshBoxesCommand.self, MeshTracesCommand.self, Airtime.self])
}

extension MeshCommand {
    /// `driftd mesh airtime`: time on air of one LoRa packet.
    struct Airtime: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "airtime",
            abstract: "Print the time on air of one LoRa packet in milliseconds.",
            discussion: """
            Prints one plain number, milliseconds with three decimals (e.g. 641.024), so scripts \
            can use it directly; --json prints an object with the inputs as well. Defaults are \
            Meshtastic's LongFast preset (SF11, 250 kHz, 4/5, 16-symbol preamble). Invalid \
            values exit with code 2.
            """)

        @Option(help: "Spreading factor, 5–12.")
        var sf = 11

        @Option(help: "Bandwidth in kHz: 7.8, 10.4, 15.6, 20.8, 31.25, 41.7, 62.5, 125, 250 or 500.")
        var bw = 250.0

        @Option(help: "Coding rate 4/x given as x, 5–8 (5 = 4/5).")
        var cr = 5

        @Option(help: "Preamble length in symbols.")
        var preamble = 16

        @Option(help: "LoRa payload length in bytes, 0–255.")
        var bytes: Int

        @Flag(help: "Implicit header mode (no LoRa header on air).")
        var implicitHeader = false

        @Flag(help: "Payload CRC off.")
        var noCrc = false

        @Option(help: "Low-data-rate optimisation: on, off or auto (on when a symbol exceeds 16 ms).")
        var ldro = "auto"

        @Flag(help: "Print JSON with the inputs and the result.")
        var json = false

        func validate() throws {
            _ = try modulation()
        }

        func modulation() throws -> LoRaModulation {
            guard let setting = LoRaModulation.LowDataRateSetting(rawValue: ldro.lowercased()) else {
                throw ValidationError("--ldro \(ldro) is invalid: expected on, off or auto")
            }
            do {
                try LoRaModulation.checkPayload(bytes: bytes)
                return try LoRaModulation.checked(
                    spreadingFactor: sf, bandwidthKHz: bw, codingRate: cr, preambleSymbols: preamble,
                    explicitHeader: !implicitHeader, crc: !noCrc, lowDataRate: setting)
            } catch {
                throw ValidationError("\(error)")
            }
        }

        func run() throws {
            let m = try modulation()
            let ms = LoRaAirtime.seconds(payloadBytes: bytes, modulation: m) * 1000
            let text = String(format: "%.3f", ms)
            if json {
                print(
                    "{\"bandwidthKHz\":\(m.bandwidthHz / 1000),\"bytes\":\(bytes),\"codingRate\":\"4/\(m.codingRateOffset + 4)\","
                        + "\"crc\":\(m.crc),\"explicitHeader\":\(m.explicitHeader),\"lowDataRateOptimize\":\(m.usesLowDataRateOptimize),"
                        + "\"milliseconds\":\(text),\"preambleSymbols\":\(m.preambleSymbols),\"spreadingFactor\":\(m.spreadingFactor)}")
            } else {
                print(text)
            }
        }
    }
}
