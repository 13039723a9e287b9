import DriftConfig
import Foundation
import TestSupport
import Testing

/// Hostile config files — what a field tester's laptop, a half-written FAT sector or a
/// stray editor can produce — never crash the loader: each gives a configuration or a
/// `ConfigError` with issues.
@Suite("Config loader under mutated input")
struct ConfigFuzzTests {
    static let seedFile: [UInt8] = {
        let path = DriftdProcess.packageRoot + "/board/sim.toml"
        return Array((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data())
    }()

    static let fragments: [[UInt8]] = [
        "[", "]", "[[", "]]", "=", "\"", "'''", "\"\"\"", "\n", "\r\n", "#", ".", "0x", "1e999", "-0",
        "inf", "nan", "true", "{", "}", "[box]", "[box.x]", "a.b.c = 1", "\u{0}", "\u{FEFF}", "é", "\\u0000",
        "1979-05-27T07:32:00Z", "99999999999999999999999", "[[storage]]", "= =", "key = [1, \"a\", {x = 1}]",
    ].map { Array($0.utf8) }

    static func mutate(_ input: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.insert(contentsOf: Self.fragments.randomElement(using: &random)!, at: position)
            case 2 where !bytes.isEmpty: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...40, using: &random)))
            case 3: bytes = Array(bytes.prefix(position))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...80, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0...bytes.count, using: &random))
            default: bytes.append(UInt8.random(in: 0...255, using: &random))
            }
        }
        return bytes
    }

    @Test("2 000 mutations of board/sim.toml: a configuration or issues, never a crash")
    func mutations() async throws {
        try #require(!Self.seedFile.isEmpty, "board/sim.toml not found")
        let directory = try TemporaryDirectory(prefix: "fuzz")
        defer { directory.remove() }
        let seedFile = Self.seedFile
        // Seconds of parsing on a thread of its own, not on the cooperative pool other tests' timers share.
        let (valid, invalid, withoutIssues) = try await runCPUBound {
            let loader = ConfigLoader(systemBoardDirectories: [])
            var random = SeededGenerator(seed: 0xD81F_7B0C)
            var valid = 0, invalid = 0
            var withoutIssues: [Int] = []
            for iteration in 0..<2_000 {
                let bytes = Self.mutate(seedFile, using: &random)
                let path = directory.appending("driftd-\(iteration % 8).toml")
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                do throws(ConfigError) {
                    _ = try loader.load(path: path)
                    valid += 1
                } catch {
                    if error.issues.isEmpty { withoutIssues.append(iteration) }
                    invalid += 1
                }
            }
            return (valid, invalid, withoutIssues)
        }
        #expect(withoutIssues.isEmpty, "iterations \(withoutIssues): an error with no issues")
        #expect(valid + invalid == 2_000)
        #expect(invalid > 0, "mutations should break most files")
    }

    @Test("random bytes and pathological shapes")
    func pathological() throws {
        let loader = ConfigLoader(systemBoardDirectories: [])
        let texts = [
            "", "\u{0}", String(repeating: "[", count: 10_000), String(repeating: "a.", count: 5_000) + "b = 1",
            "x = " + String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000),
            String(repeating: "k = 1\n", count: 20_000), "[box]\nname = \"" + String(repeating: "é", count: 100_000) + "\"",
        ]
        for text in texts {
            #expect(throws: ConfigError.self) { _ = try loader.load(text: text, fileName: "x.toml", baseDirectory: nil) }
        }
    }
}
