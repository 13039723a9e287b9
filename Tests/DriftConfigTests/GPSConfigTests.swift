import DriftConfig
import Foundation
import Testing

@Suite("GPS keys: moved threshold, clock, chrony")
struct GPSConfigTests {
    static func load(_ replacement: String) throws -> DriftConfiguration {
        let text = try ConfigFixtures.simText(replacing: [("max_fix_age_s = 30", "max_fix_age_s = 30\n" + replacement)])
        return try ConfigFixtures.loader.load(text: text, fileName: "driftd.toml", baseDirectory: "/nonexistent-drift-dir").configuration
    }

    static func issues(_ replacement: String) throws -> [ConfigIssue] {
        do {
            _ = try load(replacement)
            return []
        } catch let error as ConfigError {
            return error.issues
        }
    }

    @Test("defaults: 100 m, set the clock, no chrony")
    func defaults() throws {
        let gps = try Self.load("").gps
        #expect(gps.movedThresholdM == 100)
        #expect(gps.setClock)
        #expect(gps.chronySHM == -1)
    }

    @Test("values are read")
    func values() throws {
        let gps = try Self.load("moved_threshold_m = 250\nset_clock = false\nchrony_shm = 2").gps
        #expect(gps.movedThresholdM == 250)
        #expect(!gps.setClock)
        #expect(gps.chronySHM == 2)
    }

    @Test("out-of-range values are invalid, with the key named", arguments: [
        ("moved_threshold_m = 5", "gps.moved_threshold_m"),
        ("moved_threshold_m = 200000", "gps.moved_threshold_m"),
        ("chrony_shm = 4", "gps.chrony_shm"),
        ("chrony_shm = -2", "gps.chrony_shm"),
        ("set_clock = \"yes\"", "gps.set_clock"),
    ])
    func invalid(_ replacement: String, key: String) throws {
        let found = try Self.issues(replacement)
        #expect(found.count == 1)
        #expect(found.first?.key == key, "\(found)")
    }
}
