import Foundation
import TestSupport
import Testing

@Suite("driftd mesh airtime runs as a script-friendly tool")
struct MeshAirtimeCommandTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    @Test("Plain milliseconds by default, an object with --json; a bad value is exit 2 with the reason",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func airtime() async throws {
        let plain = try await DriftdProcess.runToCompletion(
            ["mesh", "airtime", "--sf", "11", "--bw", "250", "--cr", "5", "--preamble", "16", "--bytes", "50"])
        #expect(plain.status == 0 && plain.stdout == "641.024\n", "\(plain)")

        let json = try await DriftdProcess.runToCompletion(["mesh", "airtime", "--bytes", "43", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["milliseconds"] as? Double == 559.104, "\(json)")
        #expect(object?["codingRate"] as? String == "4/5")

        let ldro = try await DriftdProcess.runToCompletion(
            ["mesh", "airtime", "--sf", "12", "--bw", "125", "--preamble", "8", "--bytes", "20", "--ldro", "auto"])
        #expect(ldro.stdout == "1318.912\n", "\(ldro)")

        for bad in [["--bw", "300"], ["--cr", "9"], ["--sf", "13"], ["--ldro", "maybe"], ["--bytes", "256"]] {
            var arguments = ["mesh", "airtime", "--bytes", "10"]
            if bad.first == "--bytes" { arguments.removeLast(2) }
            let result = try await DriftdProcess.runToCompletion(arguments + bad)
            #expect(result.status == 2, "\(bad): \(result)")
            #expect(result.stderr.contains("invalid"), "\(bad): \(result)")
            #expect(result.stdout.isEmpty)
        }
    }
}
