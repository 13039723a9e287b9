import Foundation
import GNSS
import TestSupport
import Testing

@Suite("gpsd JSON reports read back")
struct GPSDReportTests {
    static let directory = DriftdProcess.packageRoot + "/../shared/data/nmea"

    @Test("every JSON line of gpsd's regression output parses; TPV positions and times survive",
          .enabled(if: FileManager.default.fileExists(atPath: directory), "../shared/data/nmea is absent"))
    func regressionOutput() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory).filter { $0.hasSuffix(".chk") }.sorted()
        #expect(files.count >= 20)
        var tpvs = 0
        for file in files {
            let text = try String(contentsOfFile: Self.directory + "/" + file, encoding: .utf8)
            for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{") {
                let report = try GPSDReport.parse(line)
                guard case .tpv(let fix) = report else { continue }
                tpvs += 1
                // Our TPV writer prints what was read with gpsd's formats: lat/lon and time agree.
                let written = GPSDJSON.tpv(fix)
                for key in ["\"lat\":", "\"lon\":", "\"time\":", "\"mode\":"] {
                    #expect(Self.value(key, in: String(line)) == Self.value(key, in: written), "\(file): \(key) in \(line)")
                }
            }
        }
        #expect(tpvs > 500)
    }

    static func value(_ key: String, in line: String) -> String? {
        guard let range = line.range(of: key) else { return nil }
        return String(line[range.upperBound...].prefix { $0 != "," && $0 != "}" })
    }

    @Test("random and truncated lines are errors, never crashes", arguments: [1, 2, 3] as [UInt64])
    func randomLines(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let sample = #"{"class":"TPV","mode":3,"time":"2015-03-18T17:19:26.000Z","lat":44.069010500,"lon":-121.314246333,"speed":0.060}"#
        for _ in 0..<2_000 {
            var bytes = Array(sample.utf8.prefix(Int.random(in: 0...sample.utf8.count, using: &generator)))
            for _ in 0..<Int.random(in: 0...4, using: &generator) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? GPSDReport.parse(String(decoding: bytes, as: UTF8.self))
        }
        #expect(throws: GPSDReport.ParseError.self) { try GPSDReport.parse(String(repeating: " ", count: GPSDReport.maximumLineLength + 1)) }
        #expect(throws: GPSDReport.ParseError.self) { try GPSDReport.parse(#"{"mode":3}"#) }
    }
}
