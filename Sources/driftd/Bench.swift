import ArgumentParser
import DriftCore
import DriftStore
import Foundation

/// `driftd bench …`: measurements that tests must not assert (ARCHITECTURE §8).
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure parts of the box (store throughput, erase time, NMEA decoding, mesh frames).",
        subcommands: [StoreBench.self, DurabilityWriter.self, NmeaBench.self, MeshBench.self, MqttBench.self])
}

extension Bench {
    /// `driftd bench store [--count N] [--json] [--dir DIR]`.
    struct StoreBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "store",
            abstract: "Durable drops/s, chat lines/s and erase time per bottle (synchronous=FULL, one transaction each).")

        @Option(help: "Bottles to create and chat lines to append.")
        var count = 500

        @Option(help: "Bottles to erase one by one (default: count / 10, at least 5).")
        var eraseCount: Int?

        @Option(help: "Directory to run in (default: a fresh temporary directory, removed afterwards).")
        var dir: String?

        @Flag(help: "Print the figures as JSON.")
        var json = false

        func validate() throws {
            guard count > 0 else { throw ValidationError("--count must be positive") }
            if let eraseCount, eraseCount <= 0 { throw ValidationError("--erase-count must be positive") }
        }

        func run() throws {
            let directory: String
            let temporary = dir == nil
            if let dir {
                directory = dir
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            } else {
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("driftd-bench-\(UUID().uuidString.prefix(8))").path
            }
            defer { if temporary { try? FileManager.default.removeItem(atPath: directory) } }
            let result = try StoreBenchmark(count: count, eraseCount: eraseCount).run(in: directory)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                print(String(decoding: try encoder.encode(result), as: UTF8.self))
                return
            }
            print("driftd bench store — \(result.count) writes, synchronous=\(result.synchronous == 2 ? "FULL" : "\(result.synchronous)"), \(directory)")
            print("")
            print(row("measure", "value", "unit"))
            print(row(String(repeating: "-", count: 26), String(repeating: "-", count: 10), String(repeating: "-", count: 20)))
            print(row("durable drops", format(result.dropsPerSecond), "bottles/s"))
            print(row("durable chat lines", format(result.chatLinesPerSecond), "lines/s"))
            print(row("erase one bottle (mean)", format(result.eraseMillisecondsMean), "ms"))
            print(row("erase one bottle (max)", format(result.eraseMillisecondsMax), "ms"))
            print("")
            print("erase: \(result.erasedBottles) bottles, each \(result.linesPerErasedBottle) lines + \(result.mediaBytesPerErasedBottle / 1024) KiB media;"
                  + " rows (secure_delete), media folder, WAL checkpoint(TRUNCATE)")
        }

        private func row(_ name: String, _ value: String, _ unit: String) -> String {
            name.padding(toLength: 26, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: max(0, 10 - value.count)) + value + "  " + unit
        }

        private func format(_ value: Double) -> String {
            String(format: value >= 100 ? "%.0f" : "%.2f", value)
        }
    }

    /// `driftd bench durability-writer --db PATH` (hidden): writes bottles and chat lines
    /// as fast as it can and prints each id only after its transaction committed, for the
    /// kill -9 durability test.
    ///
    /// Output, one line each, written with a single `write(2)`: `bottle <id>` after a
    /// bottle's creation committed and `line <id>` after a chat line's append committed.
    struct DurabilityWriter: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "durability-writer", abstract: "Write and acknowledge until killed (durability test).",
            shouldDisplay: false)

        @Option(help: "The database file.")
        var db: String

        @Option(help: "Chat lines per bottle.")
        var linesPerBottle = 4

        @Option(help: "Stop after this many bottles (default: never).")
        var limit: Int?

        func run() throws {
            let store = BottleStore(database: try DriftDatabase.open(path: db))
            let secret = BoxSecret.generate()
            let creator = DeviceToken.generate().hash
            let origin = BottleOrigin(boxID: try BoxID("durability"), position: nil, countryCode: nil)
            var written = 0
            while limit.map({ written < $0 }) ?? true {
                let now = Date()
                let id = BottleID.make(at: now)
                _ = try store.create(BottleDraft(content: BottleContent(text: "durability \(written) \(id)")), id: id,
                                     origin: origin, creator: creator, now: now)
                acknowledge("bottle \(id)")
                let opener = ParticipantID(visitor: creator, bottle: id, secret: secret)
                _ = try store.recordFirstOpen(id, by: opener, hostPosition: nil, at: now)
                for index in 0..<linesPerBottle {
                    let sent = Date()
                    let message = try ChatMessage.make(id: MessageID.make(at: sent), bottle: id, participant: opener,
                                                       sentAt: sent, text: "line \(index) of \(id)", language: "en")
                    try store.append(message)
                    acknowledge("line \(message.id)")
                }
                written += 1
            }
        }

        /// One unbuffered write per line, so a kill never leaves an acknowledged id unprinted
        /// in a buffer, nor prints one before its commit.
        private func acknowledge(_ text: String) {
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
    }
}
