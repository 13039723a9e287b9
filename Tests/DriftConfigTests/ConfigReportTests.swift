import DriftConfig
import Foundation
import Testing

@Suite("config check report")
struct ConfigReportTests {
    @Test("board/sim.toml passes the check")
    func simPasses() {
        let report = ConfigReport.check(path: ConfigFixtures.boardPath("sim"), loader: ConfigFixtures.loader)
        #expect(report.isValid)
        #expect(report.exitCode == 0)
        #expect(report.renderText() == "\(ConfigFixtures.boardPath("sim")): OK\n")
        #expect(report.powerProfile == .default)
    }

    @Test("a valid beacon-profile file says which power profile it runs, in text and JSON")
    func beaconProfileShown() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = try scratch.write("driftd.toml", try ConfigFixtures.simText(replacing: [
            ("profile = \"default\"", "profile = \"beacon\""),
        ]))
        let report = ConfigReport.check(path: path, loader: ConfigFixtures.loader)
        #expect(report.isValid && report.powerProfile == .beacon)
        #expect(report.renderText() == "\(path): OK, power profile beacon\n")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(report.renderJSON().utf8)) as? [String: Any])
        #expect(object["powerProfile"] as? String == "beacon")
    }

    @Test("JSON lists every issue with its location")
    func json() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = try scratch.write("driftd.toml", try ConfigFixtures.simText(replacing: [
            ("baud = 9600", "baud = true"), ("coding_rate = 5", "coding_rat = 5"),
        ]))
        let report = ConfigReport.check(path: path, loader: ConfigFixtures.loader)
        #expect(report.exitCode == 1)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(report.renderJSON().utf8)) as? [String: Any])
        #expect(object["valid"] as? Bool == false)
        #expect(object["file"] as? String == path)
        let issues = try #require(object["issues"] as? [[String: Any]])
        try #require(issues.count == 2)
        #expect(issues[0]["key"] as? String == "radio.baud")
        #expect(issues[0]["kind"] as? String == "wrongType")
        #expect(issues[0]["line"] as? Int != nil)
        #expect(issues[0]["column"] is NSNull)
        #expect(issues[1]["hint"] as? String == "did you mean `radio.coding_rate`?")

        let array = try #require(
            try JSONSerialization.jsonObject(with: Data(ConfigReport.json(issues: report.issues).utf8)) as? [[String: Any]])
        #expect(array.count == 2)
    }

    @Test("text output ends with a count")
    func textSummary() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = try scratch.write("driftd.toml", "[box]\nname = \"x\"\n")
        let report = ConfigReport.check(path: path, loader: ConfigFixtures.loader)
        #expect(report.renderText().hasSuffix("\(path): \(report.issues.count) problems\n"))
    }
}

@Suite("Reading files")
struct FileReadingTests {
    @Test("missing files and directories are unreadable, not crashes")
    func unreadable() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for path in [scratch.path + "/absent.toml", scratch.path] {
            let error = try #require(throws: ConfigError.self) { try ConfigFixtures.loader.load(path: path) }
            #expect(error.issues.count == 1)
            #expect(error.issues.first?.kind == .unreadable)
        }
    }

    @Test("binary and non-UTF-8 files are refused with a clear issue")
    func binary() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let latin1 = scratch.path + "/latin1.toml"
        try Data([0x5B, 0x62, 0x6F, 0x78, 0x5D, 0x0A, 0x6E, 0x3D, 0x22, 0xE9, 0x22, 0x0A]).write(to: URL(fileURLWithPath: latin1))
        let error = try #require(throws: ConfigError.self) { try ConfigFixtures.loader.load(path: latin1) }
        #expect(error.issues.first?.message.contains("UTF-8") == true)

        let nul = try scratch.write("nul.toml", "[box]\nname = \"a\u{0}b\"\n")
        let nulError = try #require(throws: ConfigError.self) { try ConfigFixtures.loader.load(path: nul) }
        #expect(nulError.issues.first?.kind == .syntax)
        #expect(nulError.issues.first?.line == 2)
    }

    @Test("a byte-order mark and CRLF line endings (Windows editors) are fine")
    func windowsFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let text = try ConfigFixtures.simText(replacing: [("baud = 9600", "baud = \"x\"")])
        let path = try scratch.write("driftd.toml", "\u{FEFF}" + text.replacingOccurrences(of: "\n", with: "\r\n"))
        let error = try #require(throws: ConfigError.self) { try ConfigFixtures.loader.load(path: path) }
        #expect(error.issues.map(\.key) == ["radio.baud"])
        #expect(error.issues.first?.line == ConfigFixtures.line(of: "baud = \"x\"", in: text))

        let good = try scratch.write("good.toml", "\u{FEFF}" + (try ConfigFixtures.boardText("sim")).replacingOccurrences(of: "\n", with: "\r\n"))
        #expect(try ConfigFixtures.loader.load(path: good).configuration.box.board == "sim")
    }
}
