import Foundation
import GNSS
import TestSupport
import Testing

@Suite("NMEA replay pacing")
struct NMEAReplayTests {
    static func wrap(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$\(body)*\(String(checksum, radix: 16, uppercase: true).count == 1 ? "0" : "")\(String(checksum, radix: 16, uppercase: true))\r\n"
    }

    @Test("cycles split at each new time stamp; untimed and junk lines stay in their cycle")
    func cycles() {
        let text = "# capture header\n"
            + Self.wrap("GPGSV,1,1,01,01,40,083,46")
            + Self.wrap("GPGGA,120000.00,4404.14063,N,12118.85478,W,1,08,0.9,100.0,M,0.0,M,,")
            + Self.wrap("GPRMC,120000.00,A,4404.14063,N,12118.85478,W,0.0,0.0,180315,,,A")
            + Self.wrap("GPGSA,A,3,01,,,,,,,,,,,,1.5,0.9,1.2")
            + "junk\n"
            + Self.wrap("GPGGA,120000.10,4404.14063,N,12118.85478,W,1,08,0.9,100.0,M,0.0,M,,")
            + Self.wrap("GPGLL,4404.14063,N,12118.85478,W,120000.20,A,A")
            + Self.wrap("GPZDA,120001.20,18,03,2015,00,00")
        let cycles = NMEAReplay.cycles(of: Array(text.utf8))
        #expect(cycles.map(\.timeOfDay?.description) == ["12:00:00.000", "12:00:00.100", "12:00:00.200", "12:00:01.200"])
        #expect(String(decoding: cycles[0].bytes, as: UTF8.self).hasPrefix("# capture header\n$GPGSV"))
        #expect(String(decoding: cycles[0].bytes, as: UTF8.self).hasSuffix("junk\n"))
        #expect(cycles.flatMap(\.bytes) == Array(text.utf8), "nothing lost or reordered")
    }

    @Test("pauses follow the capture's time stamps; 1 s when it has none, across midnight, and after a long gap")
    func delays() {
        func time(_ ms: Int) -> NMEATimeOfDay { NMEATimeOfDay(milliseconds: ms) }
        #expect(NMEAReplay.delay(from: time(1000), to: time(1100)) == .milliseconds(100))
        #expect(NMEAReplay.delay(from: time(1000), to: time(3000)) == .seconds(2))
        #expect(NMEAReplay.delay(from: time(86_399_500), to: time(500)) == .seconds(1), "midnight")
        #expect(NMEAReplay.delay(from: nil, to: time(500)) == .seconds(1))
        #expect(NMEAReplay.delay(from: time(500), to: nil) == .seconds(1))
        #expect(NMEAReplay.delay(from: time(0), to: time(3_600_000)) == .seconds(1), "an hour's gap is a pause in the capture")
    }

    static let capture = DriftdProcess.packageRoot + "/../shared/data/nmea/neo-m8n.log"

    @Test("a real 1 Hz capture replays one cycle a second", .enabled(if: FileManager.default.fileExists(atPath: capture), "../shared/data/nmea is absent"))
    func realCapture() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.capture))
        let cycles = NMEAReplay.cycles(of: Array(data))
        #expect(cycles.count >= 20)
        let delays = zip(cycles, cycles.dropFirst()).map { NMEAReplay.delay(from: $0.timeOfDay, to: $1.timeOfDay) }
        #expect(delays.allSatisfy { $0 == .seconds(1) }, "\(delays)")
        #expect(cycles.flatMap(\.bytes) == Array(data))
    }
}
