import DriftConfig
import DriftDaemon
import DriftStore
import Foundation
import Logging
import TestSupport
import Testing

@Suite("First boot: identity init")
struct IdentityInitTests {
    static let logger = Logger(label: "test.identity")

    @Test("makes the data directory, the migrated store, box id and secret, mesh key and marker; a second run changes nothing")
    func twice() throws {
        let directory = try TemporaryDirectory(prefix: "identity")
        defer { directory.remove() }
        let dataDirectory = directory.appending("data/driftd")
        let config = ConfigLoader.loadEmbeddedDefault().configuration

        let first = try IdentityInit.run(config: config, dataDirectory: dataDirectory, logger: Self.logger)
        #expect(first.created && first.boxID.hasPrefix("box-") && first.meshNode.hasPrefix("!"))
        let attributes = try FileManager.default.attributesOfItem(atPath: dataDirectory)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: dataDirectory) {
            let mode = try FileManager.default.attributesOfItem(atPath: dataDirectory + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name) is \(String(mode ?? -1, radix: 8))")
        }
        let key = try #require(FileManager.default.contents(atPath: dataDirectory + "/mesh.key"))
        #expect(key.count == 32)
        let marker = try String(contentsOfFile: dataDirectory + "/" + IdentityInit.markerName, encoding: .utf8)
        #expect(marker == "box_id=\(first.boxID)\nmesh_node=\(first.meshNode)\n")
        let database = try DriftDatabase.open(path: dataDirectory + "/drift.sqlite")
        let state = BoxStateStore(database: database)
        #expect(try state.value(for: "box.id") == first.boxID)
        let secret = try #require(try state.value(for: "box.secret"))
        let files = try Self.snapshot(dataDirectory)

        let second = try IdentityInit.run(config: config, dataDirectory: dataDirectory, logger: Self.logger)
        #expect(second.boxID == first.boxID && second.meshNode == first.meshNode && !second.created)
        #expect(try state.value(for: "box.secret") == secret)
        #expect(FileManager.default.contents(atPath: dataDirectory + "/mesh.key") == key)
        #expect(try Self.snapshot(dataDirectory)[IdentityInit.markerName] == files[IdentityInit.markerName])
        #expect(try Self.snapshot(dataDirectory)["mesh.key"] == files["mesh.key"])
    }

    @Test("the daemon's start-up path finds the same identity (one code path: BoxSetup)")
    func sharedWithDaemon() throws {
        let directory = try TemporaryDirectory(prefix: "identity-daemon")
        defer { directory.remove() }
        let config = ConfigLoader.loadEmbeddedDefault().configuration
        let report = try IdentityInit.run(config: config, dataDirectory: directory.path, logger: Self.logger)
        let setup = try BoxSetup.open(dataDirectory: directory.path, configuredID: "")
        #expect(setup.boxID == report.boxID && !setup.created)
    }

    @Test("box.id from the config wins and is printed")
    func configuredID() throws {
        let directory = try TemporaryDirectory(prefix: "identity-configured")
        defer { directory.remove() }
        var config = ConfigLoader.loadEmbeddedDefault().configuration
        config.box.id = "field-box-7"
        let report = try IdentityInit.run(config: config, dataDirectory: directory.path, logger: Self.logger)
        #expect(report.boxID == "field-box-7")
    }

    @Test("a mesh key of the wrong size is an error, never replaced")
    func brokenKey() throws {
        let directory = try TemporaryDirectory(prefix: "identity-broken")
        defer { directory.remove() }
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: directory.appending("mesh.key")))
        let config = ConfigLoader.loadEmbeddedDefault().configuration
        #expect(throws: IdentityInit.Failure.self) {
            try IdentityInit.run(config: config, dataDirectory: directory.path, logger: Self.logger)
        }
        #expect(FileManager.default.contents(atPath: directory.appending("mesh.key")) == Data([1, 2, 3]))
        #expect(!FileManager.default.fileExists(atPath: directory.appending(IdentityInit.markerName)))
    }

    @Test("a data directory that cannot be created is a clear error")
    func unwritable() throws {
        let directory = try TemporaryDirectory(prefix: "identity-file")
        defer { directory.remove() }
        try Data().write(to: URL(fileURLWithPath: directory.appending("plain-file")))
        let config = ConfigLoader.loadEmbeddedDefault().configuration
        do {
            _ = try IdentityInit.run(config: config, dataDirectory: directory.appending("plain-file/driftd"), logger: Self.logger)
            Issue.record("expected a failure")
        } catch {
            #expect(error.description.contains("data directory"), "\(error)")
        }
    }

    /// Name → (size, modification date) of every file in `directory`.
    static func snapshot(_ directory: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            result[name] = "\(attributes[.size] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
        return result
    }
}
