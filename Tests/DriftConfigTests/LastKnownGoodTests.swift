import DriftConfig
import Foundation
import Testing

@Suite("Last known good configuration")
struct LastKnownGoodTests {
    @Test("valid file: used and saved; invalid later: the saved copy runs and the problem is reported")
    func fallbackCycle() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let data = scratch.path + "/data"
        let good = try ConfigFixtures.simText(replacing: [("data_dir = \"./var\"", "data_dir = \"\(data)\"")])
        let path = try scratch.write("config/driftd.toml", good)

        let first = try ConfigFixtures.loader.loadWithFallback(path: path)
        guard case .primary(let loaded, let saveProblem) = first else {
            Issue.record("expected the primary config, got \(first)")
            return
        }
        #expect(saveProblem == nil)
        let saved = LastKnownGood(directory: data)
        #expect(saved.path == data + "/driftd.last-good.toml")
        #expect(try String(contentsOfFile: saved.path, encoding: .utf8) == loaded.effectiveText)
        let mode = try FileManager.default.attributesOfItem(atPath: saved.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Only the saved copy: no temporary files left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: data) == ["driftd.last-good.toml"])

        // The installer breaks the file.
        let broken = good.replacingOccurrences(of: "baud = 9600", with: "baud = \"fast\"")
        try scratch.write("config/driftd.toml", broken)
        let second = try ConfigFixtures.loader.loadWithFallback(path: path)
        guard case .lastKnownGood(let fallback, let problem) = second else {
            Issue.record("expected the fallback, got \(second)")
            return
        }
        #expect(fallback.configuration == loaded.configuration)
        #expect(fallback.files == [saved.path])
        #expect(problem.issues.map(\.key) == ["radio.baud"])
        #expect(problem.issues.first?.file == path)
        #expect(second.configuration == loaded.configuration)
    }

    @Test("invalid file and no saved copy: throws with both reasons")
    func noSavedCopy() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = try scratch.write("driftd.toml", try ConfigFixtures.simText(replacing: [("hop_limit = 7", "hop_limit = 99")]))
        let error = try #require(throws: ConfigError.self) {
            try ConfigFixtures.loader.loadWithFallback(path: path, dataDirectory: scratch.path + "/data")
        }
        try #require(error.issues.count == 2)
        #expect(error.issues[0].key == "mesh.hop_limit")
        #expect(error.issues[1].kind == .unreadable)
        #expect(error.issues[1].file == scratch.path + "/data/driftd.last-good.toml")
    }

    @Test("a missing config file falls back too, when the data directory is given")
    func missingPrimary() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let loaded = try ConfigFixtures.loader.load(path: ConfigFixtures.boardPath("sim"))
        try LastKnownGood(directory: scratch.path).save(loaded)
        let outcome = try ConfigFixtures.loader.loadWithFallback(
            path: scratch.path + "/absent.toml", dataDirectory: scratch.path)
        guard case .lastKnownGood(let fallback, let problem) = outcome else {
            Issue.record("expected the fallback, got \(outcome)")
            return
        }
        #expect(fallback.configuration == loaded.configuration)
        #expect(problem.issues.first?.kind == .unreadable)
        #expect(problem.issues.first?.message == "the file does not exist")
    }

    @Test("without --data-dir the data directory is read from the invalid file if possible")
    func dataDirectoryFromInvalidFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let data = scratch.path + "/data"
        let good = try ConfigFixtures.simText(replacing: [("data_dir = \"./var\"", "data_dir = \"\(data)\"")])
        try LastKnownGood(directory: data).save(ConfigFixtures.loader.load(text: good, fileName: "g.toml", baseDirectory: scratch.path))
        let path = try scratch.write("driftd.toml", good.replacingOccurrences(of: "country = \"DE\"", with: "country = \"XX\""))
        let outcome = try ConfigFixtures.loader.loadWithFallback(path: path)
        #expect(outcome.configuration.storage.dataDir == data)
        if case .lastKnownGood(_, let problem) = outcome {
            #expect(problem.issues.map(\.key) == ["box.country"])
        } else {
            Issue.record("expected the fallback")
        }
    }

    @Test("saving unchanged text does not rewrite the file")
    func unchangedNotRewritten() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let copy = LastKnownGood(directory: scratch.path + "/new/data")
        #expect(try copy.save(text: "a = 1\n"))
        #expect(try copy.save(text: "a = 1\n") == false)
        #expect(try copy.save(text: "a = 2\n"))
        #expect(try String(contentsOfFile: copy.path, encoding: .utf8) == "a = 2\n")
    }

    @Test("a save that cannot happen is reported, and the valid config still runs")
    func saveProblemReported() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let blocker = try scratch.write("blocker", "not a directory")
        let path = try scratch.write("driftd.toml", try ConfigFixtures.boardText("sim"))
        let outcome = try ConfigFixtures.loader.loadWithFallback(path: path, dataDirectory: blocker)
        guard case .primary(_, let saveProblem) = outcome else {
            Issue.record("expected the primary config")
            return
        }
        let problem = try #require(saveProblem)
        #expect(problem.description.contains("cannot save the last known good configuration"))
    }

    @Test("a saved copy that is itself invalid is not used")
    func invalidSavedCopy() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try LastKnownGood(directory: scratch.path).save(text: "[box]\nname = 3\n")
        let path = try scratch.write("driftd.toml", "[box\n")
        let error = try #require(throws: ConfigError.self) {
            try ConfigFixtures.loader.loadWithFallback(path: path, dataDirectory: scratch.path)
        }
        #expect(error.issues.first?.kind == .syntax)
        #expect(error.issues.contains { $0.file == LastKnownGood(directory: scratch.path).path })
    }
}

@Suite("Overrides")
struct OverrideTests {
    @Test("--data-dir and --listen replace the configured values")
    func overrides() throws {
        let config = ConfigLoader.loadEmbeddedDefault().configuration
        let changed = try config.applying(dataDirectory: "/tmp/box-b", listen: "127.0.0.1:8081")
        #expect(changed.storage.dataDir == "/tmp/box-b")
        #expect(changed.http.listen == HostPort(host: "127.0.0.1", port: 8081))
        #expect(changed.controlSocketPath == "/tmp/box-b/driftd.sock")
        #expect(try config.applying() == config)
        #expect(try config.applying(listen: "[::]:9000").http.listen.host == "::")
    }

    @Test("bad overrides are typed errors naming the key")
    func badOverrides() throws {
        let config = ConfigLoader.loadEmbeddedDefault().configuration
        let error = try #require(throws: ConfigError.self) {
            try config.applying(dataDirectory: "", listen: "localhost")
        }
        #expect(error.issues.map(\.key) == ["storage.data_dir", "http.listen"])
        #expect(error.issues.allSatisfy { $0.file == "command line" && $0.kind == .invalidValue })
    }

    @Test("an explicit control socket wins over the data directory")
    func explicitSocket() throws {
        var config = ConfigLoader.loadEmbeddedDefault().configuration
        config.control.socket = "/run/driftd.sock"
        #expect(try config.applying(dataDirectory: "/elsewhere").controlSocketPath == "/run/driftd.sock")
    }
}
