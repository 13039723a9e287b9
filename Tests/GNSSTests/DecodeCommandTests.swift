import Foundation
import GNSS
import TestSupport
import Testing

/// `driftd nmea decode` run as a child process on a capture.
@Suite("driftd nmea decode")
struct DecodeCommandTests {
    private static let captures = DriftdProcess.packageRoot + "/../shared/data/nmea"

    @Test func echoesGpsdsSentencesAndPrintsOneTPVPerEpoch() async throws {
        let log = Self.captures + "/nmea-rtk.log"
        guard FileManager.default.fileExists(atPath: log) else {
            print("decode command test skipped: \(log) is absent")
            return
        }
        guard DriftdProcess.binaryPath != nil else {
            print("decode command test skipped: driftd is not built (swift build --build-tests builds it)")
            return
        }
        let result = try await DriftdProcess.runToCompletion(["nmea", "decode", "--echo", log])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let check = try Data(contentsOf: URL(fileURLWithPath: log + ".chk"))
        let expected = check.split(separator: UInt8(ascii: "\n"))
            .map { String(decoding: $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0[...], as: UTF8.self) }
            .filter { $0.hasPrefix("$") || $0.hasPrefix("!") }
        #expect(lines.filter { $0.hasPrefix("$") } == expected)
        let tpvs = lines.filter { $0.hasPrefix(#"{"class":"TPV""#) }
        let decoded = NMEADecoder.decode(try Data(contentsOf: URL(fileURLWithPath: log)))
        #expect(tpvs.count == decoded.epochs.count)
        #expect(tpvs.contains { $0.contains(#""status":3"#) })   // RTK fixed in this capture
    }

    @Test func missingFileIsAnErrorNotACrash() async throws {
        guard DriftdProcess.binaryPath != nil else {
            print("decode command test skipped: driftd is not built")
            return
        }
        let result = try await DriftdProcess.runToCompletion(["nmea", "decode", "/nonexistent/capture.log"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent/capture.log"))
    }
}
