import ArgumentParser
import Foundation
import GNSS

/// `driftd nmea …`: NMEA 0183 tools.
struct Nmea: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nmea",
        abstract: "NMEA 0183 tools (decode a receiver capture the way gpsd does).",
        subcommands: [Decode.self])
}

extension Nmea {
    /// `driftd nmea decode [--echo] [FILE|-]`: gpsd's regression output for a capture.
    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract: "Decode NMEA bytes into gpsd-style TPV/SKY JSON lines, one TPV per receiver cycle.",
            discussion: """
            Reads raw receiver bytes (noise, CR/LF or LF, `#` header lines of gpsd captures \
            are fine). With --echo every accepted sentence (well framed, checksum valid) is \
            printed verbatim before the reports, as in gpsd's `.chk` files. Dropped input is \
            summarised on standard error.
            """)

        @Flag(help: "Print every accepted sentence verbatim before the JSON reports.")
        var echo = false

        @Argument(help: "Capture file to read, or - for standard input.")
        var file = "-"

        func run() throws {
            let input: FileHandle
            if file == "-" {
                input = FileHandle.standardInput
            } else {
                guard let handle = FileHandle(forReadingAtPath: file) else {
                    throw NmeaInputError(path: file, reason: "cannot open for reading")
                }
                input = handle
            }
            defer { if file != "-" { try? input.close() } }

            var decoder = NMEADecoder(echo: echo)
            var output = ""
            output.reserveCapacity(1 << 16)
            func flush() {
                FileHandle.standardOutput.write(Data(output.utf8))
                output.removeAll(keepingCapacity: true)
            }
            while true {
                let chunk: Data
                do {
                    chunk = try input.read(upToCount: 1 << 16) ?? Data()
                } catch {
                    throw NmeaInputError(path: file, reason: "read failed: \(error)")
                }
                if chunk.isEmpty { break }
                for line in decoder.push(chunk) {
                    output += line
                    output += "\n"
                }
                if output.utf8.count > 1 << 15 { flush() }
            }
            for line in decoder.finish() {
                output += line
                output += "\n"
            }
            flush()
            let counters = decoder.framer.counters
            if counters.dropped > 0 || counters.noiseBytes > 0 || decoder.parseErrors > 0 {
                let summary = "driftd nmea decode: \(counters.accepted) sentences, \(decoder.epochCount) epochs; dropped: "
                    + "\(counters.badChecksum) bad checksum, \(counters.missingChecksum) no checksum, "
                    + "\(counters.truncated) truncated, \(counters.badCharacter) bad byte, \(counters.tooLong) too long, "
                    + "\(counters.badAddress) bad address, \(decoder.parseErrors) unparsable; \(counters.noiseBytes) noise bytes\n"
                FileHandle.standardError.write(Data(summary.utf8))
            }
        }
    }
}

/// A capture that could not be read.
struct NmeaInputError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "\(path): \(reason)" }
}
