import ArgumentParser
import Foundation
import GNSS

extension Bench {
    /// `driftd bench nmea FILE [--min-seconds S]`: NMEA decoding throughput.
    struct NmeaBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "nmea",
            abstract: "Sentences/s and MB/s of `nmea decode` (framing, parsing, epochs, TPV/SKY JSON) on a capture held in memory.")

        @Argument(help: "Capture file (e.g. the gpsd captures concatenated).")
        var file: String

        @Option(help: "Repeat the whole file until at least this many seconds have passed.")
        var minSeconds = 2.0

        func validate() throws {
            guard minSeconds > 0 else { throw ValidationError("--min-seconds must be positive") }
        }

        func run() throws {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw NmeaInputError(path: file, reason: "cannot open for reading")
            }
            let bytes = [UInt8](data)
            let clock = ContinuousClock()
            var passes = 0
            var sentences = 0
            var epochs = 0
            var outputBytes = 0
            let start = clock.now
            var elapsed = Duration.zero
            repeat {
                var decoder = NMEADecoder(echo: false)
                for line in decoder.push(bytes) { outputBytes += line.utf8.count + 1 }
                for line in decoder.finish() { outputBytes += line.utf8.count + 1 }
                sentences += decoder.framer.counters.accepted
                epochs += decoder.epochCount
                passes += 1
                elapsed = clock.now - start
            } while elapsed < .milliseconds(Int64(minSeconds * 1000))
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let megabytes = Double(bytes.count * passes) / 1_000_000
            print("driftd bench nmea — \(file): \(bytes.count) bytes, \(sentences / passes) sentences, \(epochs / passes) epochs per pass, \(passes) passes")
            print(String(format: "%-14@ %14.0f", "sentences/s" as NSString, Double(sentences) / seconds))
            print(String(format: "%-14@ %14.2f", "MB/s" as NSString, megabytes / seconds))
            print(String(format: "%-14@ %14.0f", "epochs/s" as NSString, Double(epochs) / seconds))
            print(String(format: "%-14@ %14.1f", "output MB/s" as NSString, Double(outputBytes) / 1_000_000 / seconds))
        }
    }
}
