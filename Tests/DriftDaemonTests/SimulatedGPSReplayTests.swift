import DriftDaemon
import Foundation
import GNSS
import Synchronization
import TestSupport
import Testing

@Suite("Simulated GPS: replay in real time")
struct SimulatedGPSReplayTests {
    @Test("a replayed capture comes cycle by cycle with the capture's own pauses, then starts again")
    func pacedReplay() async throws {
        let directory = try TemporaryDirectory(prefix: "replay")
        defer { directory.remove() }
        func wrap(_ body: String) -> String {
            let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            let hex = String(checksum, radix: 16, uppercase: true)
            return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)\r\n"
        }
        // 5 Hz for three cycles, then a 2 s step.
        let stamps = ["120000.00", "120000.20", "120000.40", "120002.40"]
        let text = stamps.map { wrap("GPGGA,\($0),4404.14063,N,12118.85478,W,1,08,0.9,100.0,M,0.0,M,,") + wrap("GPGSA,A,3,01,,,,,,,,,,,,1.5,0.9,1.2") }
            .joined()
        let path = directory.appending("capture.nmea")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))

        let pauses = Mutex<[Duration]>([])
        let gps = SimulatedGPS(latitude: 0, longitude: 0, altitude: 0, replayPath: path) { duration in
            pauses.withLock { $0.append(duration) }
            await Task.yield()
        }
        var chunks: [[UInt8]] = []
        for await chunk in gps.bytes() {
            chunks.append(chunk)
            if chunks.count == 6 { break }
        }
        #expect(pauses.withLock { Array($0.prefix(5)) } == [.milliseconds(200), .milliseconds(200), .seconds(2), .seconds(1), .milliseconds(200)])
        #expect(chunks.count == 6)
        #expect(String(decoding: chunks[0], as: UTF8.self).components(separatedBy: "\r\n").count == 3, "one cycle: GGA and GSA")
        #expect(chunks[4] == chunks[0], "the capture starts again")
    }

    @Test("the fixed-position receiver talks once a second through the injected sleeper")
    func fixedPosition() async {
        let pauses = Mutex<[Duration]>([])
        let gps = SimulatedGPS(latitude: 1, longitude: 2, altitude: 3) { duration in
            pauses.withLock { $0.append(duration) }
            await Task.yield()
        }
        var count = 0
        for await _ in gps.bytes() {
            count += 1
            if count == 3 { break }
        }
        #expect(pauses.withLock { Array($0.prefix(2)) } == [.seconds(1), .seconds(1)])
    }
}
