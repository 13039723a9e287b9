import DriftDaemon
import Foundation
import Logging
import Testing

@Suite("Journald-friendly log lines")
struct JournalLogHandlerTests {
    @Test("priorities follow syslog", arguments: [
        (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func priority(level: Logger.Level, expected: Int) {
        #expect(JournalLogHandler.priority(of: level) == expected)
    }

    @Test("journal style: <N> prefix, one line, sorted quoted metadata")
    func journalStyle() {
        let line = JournalLogHandler.format(
            level: .warning, label: "driftd.gps", message: "receiver silent\nreopening",
            metadata: ["port": "/dev/ttyAMA1", "reason": "no data for 12 s"], style: .journal, date: Date()
        )
        #expect(line == "<4>driftd.gps: receiver silent ⏎ reopening port=/dev/ttyAMA1 reason=\"no data for 12 s\"")
    }

    @Test("text style: timestamp and level name")
    func textStyle() {
        let date = Date(timeIntervalSince1970: 1_800_000_000.25)
        let line = JournalLogHandler.format(level: .info, label: "driftd", message: "ready", metadata: [:], style: .text, date: date)
        #expect(line == "2027-01-15T08:00:00.250Z info driftd: ready")
    }

    @Test("the environment picks the style")
    func styleFromEnvironment() {
        #expect(JournalLogHandler(label: "x", environment: ["JOURNAL_STREAM": "8:1234"]).style == .journal)
        #expect(JournalLogHandler(label: "x", environment: [:]).style == .text)
    }

    @Test("levels below the handler's are dropped; the rest reach the sink")
    func filtering() {
        let (sink, lines) = JournalLogHandler.Sink.collecting()
        var logger = Logger(label: "t") { label in JournalLogHandler(label: label, level: .notice, style: .journal, sink: sink) }
        logger[metadataKey: "box"] = "sim"
        logger.info("hidden")
        logger.error("shown", metadata: ["code": "3"])
        #expect(lines() == ["<3>t: shown box=sim code=3"])
    }
}
