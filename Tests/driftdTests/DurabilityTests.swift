import DriftCore
import DriftStore
import DriftSystem
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Acknowledged writes survive `kill -9`: a child `driftd bench durability-writer`
/// writes as fast as it can and prints each id after its commit; it is killed with
/// SIGKILL at random moments, again and again on the same database.
@Suite("Durability")
struct DurabilityTests {
    /// The built `driftd` next to the test bundle (`.build/debug/driftd`), if any.
    static func driftdBinary() -> String? {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("driftd"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("driftd"),
            packageRoot.appendingPathComponent(".build/debug/driftd"),
        ]
        return candidates.map(\.path).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the writer, kills it with SIGKILL after `delay`, returns its complete output lines.
    static func runAndKill(binary: String, database: String, after delay: TimeInterval) throws -> (lines: [String], status: Int32) {
        let directory = try TemporaryDirectory(prefix: "writer")
        defer { directory.remove() }
        let outPath = directory.appending("stdout")
        let process = try ChildProcess(executable: binary, arguments: ["bench", "durability-writer", "--db", database],
                                       stdoutPath: outPath, stderrPath: "/dev/null")
        // The kill lands at a random moment of the writer's life: a real-time delay is the point here.
        usleep(useconds_t(delay * 1_000_000))
        process.send(SIGKILL)
        let status = process.waitUntilExit()
        let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        // Only complete lines count as acknowledged.
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // after the last "\n": empty, or a torn line
        return (lines, status)
    }

    @Test("every id acknowledged before a SIGKILL is present afterwards, and the database is sound")
    func acknowledgedWritesSurviveKill() async throws {
        guard let binary = Self.driftdBinary() else {
            print("skipping durability test: no built driftd next to the test bundle (run `swift build` first)")
            return
        }
        let directory = try TemporaryDirectory(prefix: "durability")
        defer { directory.remove() }
        let path = directory.appending("drift.sqlite")
        var bottles = Set<BottleID>()
        var lines = Set<MessageID>()
        var killed = 0
        // At least 60 kills; more while the writer has acknowledged too little to prove
        // anything — every acknowledged write waits for its fsync, and on a loaded disk 60
        // short runs acknowledged only 14 bottles (at most 400 rounds).
        var rounds = 0
        let clock = ContinuousClock()
        let began = clock.now
        while rounds < 60 || ((bottles.count < 50 || lines.count < 100) && rounds < 400) {
            let round = rounds
            rounds += 1
            // Mostly while writing; every fifth round very early (opening, migrating).
            let delay = round % 5 == 0 ? Double.random(in: 0.0...0.05) : Double.random(in: 0.05...0.4)
            let (output, status) = try await runBlocking { try Self.runAndKill(binary: binary, database: path, after: delay) }
            if status == 128 + SIGKILL { killed += 1 }
            for line in output {
                let parts = line.split(separator: " ").map(String.init)
                if parts.count == 2, parts[0] == "bottle", let id = BottleID(parts[1]) {
                    bottles.insert(id)
                } else if parts.count == 2, parts[0] == "line", let id = MessageID(parts[1]) {
                    lines.insert(id)
                } else {
                    Issue.record("unexpected writer output: \(line)")
                }
            }
        }
        let elapsed = clock.now - began
        print("durability: \(rounds) runs (\(killed) killed by SIGKILL), \(bottles.count) bottles and \(lines.count) lines acknowledged, \(elapsed)")
        #expect(killed >= 50)
        #expect(bottles.count >= 50, "the writer acknowledged too little to prove anything")
        #expect(lines.count >= 100)

        let database = try DriftDatabase.open(path: path)
        #expect(try database.integrityCheck() == "ok")
        let store = BottleStore(database: database)
        let stored = try store.allIDs()
        let missingBottles = bottles.subtracting(stored)
        #expect(missingBottles.isEmpty, "acknowledged bottles lost: \(missingBottles.prefix(5))")
        var missingLines: [MessageID] = []
        for id in lines where try store.message(id) == nil { missingLines.append(id) }
        #expect(missingLines.isEmpty, "acknowledged lines lost: \(missingLines.prefix(5))")
    }
}
