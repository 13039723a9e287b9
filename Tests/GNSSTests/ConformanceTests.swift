import Foundation
import GNSS
import Testing

/// The gpsd regression captures in `../shared/data/nmea` (relative to the package root).
private let capturesDirectory: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("../shared/data/nmea").standardized.path
}()

/// Epochs per capture where we knowingly disagree with gpsd; each is explained in docs/gnss.md.
private let explainedDisagreements: [String: Int] = [
    "gp-320fw-2019-04-07-coldboot.log": 9,
    "humminbird-M37.log": 1,
    "neo-m8n.log": 22,
]

@Suite("gpsd conformance")
struct ConformanceTests {
    @Test func everyCaptureAgreesWithGpsdOrTheDisagreementIsExplained() throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: capturesDirectory) else {
            print("gpsd conformance skipped: \(capturesDirectory) is absent")
            return
        }
        let logs = names.filter { $0.hasSuffix(".log") }.sorted()
        try #require(!logs.isEmpty, "no captures in \(capturesDirectory)")
        var table = [row("log", "sentences", "epochs", "agree", "disagree", "early")]
        var totals = (sentences: 0, epochs: 0, agree: 0, disagree: 0)
        for log in logs {
            let result = try GPSDConformance(logPath: capturesDirectory + "/" + log)
            #expect(result.sentencesAgree, "\(log): accepted sentences differ from gpsd's")
            let allowed = explainedDisagreements[log] ?? 0
            #expect(result.disagreeingEpochs <= allowed,
                    "\(log): \(result.disagreeingEpochs) epochs disagree (explained: \(allowed)): \(result.disagreements.prefix(5))")
            table.append(row(log, "\(result.ourSentences.count)", "\(result.epochsCompared)", "\(result.agreeing)",
                             "\(result.disagreeingEpochs)", "\(result.earlyReports)"))
            totals.sentences += result.ourSentences.count
            totals.epochs += result.epochsCompared
            totals.agree += result.agreeing
            totals.disagree += result.disagreeingEpochs
        }
        table.append(row("total", "\(totals.sentences)", "\(totals.epochs)", "\(totals.agree)", "\(totals.disagree)", ""))
        print(table.joined(separator: "\n"))
    }

    @Test func decodeOutputEchoesExactlyGpsdsSentences() throws {
        let path = capturesDirectory + "/isync.log"
        guard let bytes = FileManager.default.contents(atPath: path),
              let check = FileManager.default.contents(atPath: path + ".chk") else {
            print("decode echo test skipped: \(path) is absent")
            return
        }
        var decoder = NMEADecoder(echo: true)
        let lines = decoder.push(bytes) + decoder.finish()
        let echoed = lines.filter { $0.hasPrefix("$") || $0.hasPrefix("!") }
        // Split bytes, not Characters: "\r\n" is one Character in Swift.
        let expected = check.split(separator: UInt8(ascii: "\n"))
            .map { String(decoding: $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0[...], as: UTF8.self) }
            .filter { $0.hasPrefix("$") || $0.hasPrefix("!") }
        #expect(echoed == expected)
        #expect(lines.contains { $0.hasPrefix("{\"class\":\"TPV\"") })
        #expect(decoder.framer.counters.accepted == expected.count)
    }

    private func row(_ columns: String...) -> String {
        let widths = [34, 10, 7, 6, 9, 6]
        return zip(columns, widths).map { column, width in
            column.count >= width ? column : column + String(repeating: " ", count: width - column.count)
        }.joined(separator: " ")
    }
}
