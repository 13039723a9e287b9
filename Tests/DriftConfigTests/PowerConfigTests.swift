import DriftConfig
import Foundation
import Testing

@Suite("[power] configuration")
struct PowerConfigTests {
    private func load(_ replacements: [(String, String)]) throws -> DriftConfiguration {
        try ConfigFixtures.simConfig(replacing: replacements)
    }

    private func issues(_ replacements: [(String, String)]) throws -> [ConfigIssue] {
        try ConfigFixtures.simIssues(replacing: replacements)
    }

    @Test("defaults: the default profile, the receiver recognised, 30 min asleep, 2 min checks")
    func defaults() throws {
        let config = try load([])
        #expect(config.power.profile == .default && config.powerProfile == .default)
        #expect(config.power.gpsReceiver == .auto)
        #expect(config.power.gpsWakeInterval == .seconds(1_800) && config.power.gpsCheck == .seconds(120))
    }

    @Test("the beacon profile with a u-blox receiver and a 10 min wake interval")
    func beacon() throws {
        let config = try load([
            ("profile = \"default\"", "profile = \"beacon\""),
            ("gps_receiver = \"auto\"", "gps_receiver = \"ublox\""),
            ("gps_wake_interval_s = 1800", "gps_wake_interval_s = 600"),
        ])
        #expect(config.power.profile == .beacon && config.powerProfile == .beacon)
        #expect(config.power.gpsReceiver == .ublox && config.power.gpsWakeInterval == .seconds(600))
    }

    @Test("camp.beacon_kit = true is the beacon profile too")
    func beaconKitIsBeacon() throws {
        let config = try load([
            ("name = \"\"\nmembers = 0", "name = \"Kit\"\nmembers = 0"),
            ("beacon_kit = false", "beacon_kit = true"),
        ])
        #expect(config.power.profile == .default && config.powerProfile == .beacon)
    }

    @Test("daemon.trim_memory left out: on in the beacon profile only; set, it wins either way; a string is a type error")
    func trimMemoryFollowsTheProfile() throws {
        let plain = try load([])
        #expect(plain.daemon.trimMemory == nil && !plain.trimsMemory)
        let beacon = try load([("profile = \"default\"", "profile = \"beacon\"")])
        #expect(beacon.daemon.trimMemory == nil && beacon.trimsMemory)
        let told = try load([("watchdog = true", "watchdog = true\ntrim_memory = true")])
        #expect(told.daemon.trimMemory == true && told.trimsMemory)
        let kept = try load([("profile = \"default\"", "profile = \"beacon\""), ("watchdog = true", "watchdog = true\ntrim_memory = false")])
        #expect(kept.daemon.trimMemory == false && !kept.trimsMemory)
        let found = try issues([("watchdog = true", "watchdog = true\ntrim_memory = \"yes\"")])
        #expect(found.contains { $0.key == "daemon.trim_memory" && $0.message == "expected a boolean, found a string" }, "\(found)")
    }

    @Test("a misspelt profile names the key and suggests the right value")
    func misspelt() throws {
        let found = try issues([("profile = \"default\"", "profile = \"becon\"")])
        #expect(found.map(\.key) == ["power.profile"], "\(found)")
        #expect(found.first?.message.contains("`default`, `beacon`") == true, "\(found)")
        #expect(found.first?.hint == "did you mean `beacon`?", "\(found)")
        let line = try #require(ConfigFixtures.line(of: "profile = \"default\"", in: try ConfigFixtures.boardText("sim")))
        #expect(found.first?.description.contains("driftd.toml:\(line): power.profile") == true, "\(found)")
    }

    @Test("a misspelt receiver suggests the right one")
    func misspeltReceiver() throws {
        let found = try issues([("gps_receiver = \"auto\"", "gps_receiver = \"u-blox\"")])
        #expect(found.map(\.key) == ["power.gps_receiver"], "\(found)")
        #expect(found.first?.hint == "did you mean `ublox`?", "\(found)")
    }

    @Test("intervals outside their ranges are refused", arguments: [
        ("gps_wake_interval_s = 1800", "gps_wake_interval_s = 59", "power.gps_wake_interval_s"),
        ("gps_wake_interval_s = 1800", "gps_wake_interval_s = 86401", "power.gps_wake_interval_s"),
        ("gps_check_s = 120", "gps_check_s = 9", "power.gps_check_s"),
    ])
    func ranges(_ find: String, _ replace: String, _ key: String) throws {
        let found = try issues([(find, replace)])
        #expect(found.map(\.key) == [key], "\(found)")
    }

    @Test("the beacon profile needs the mesh")
    func beaconNeedsMesh() throws {
        let found = try issues([
            ("profile = \"default\"", "profile = \"beacon\""),
            ("mesh = true", "mesh = false"),
        ])
        #expect(found.map(\.key) == ["power.profile"], "\(found)")
        #expect(found.first?.message.contains("features.mesh = false") == true)
    }

    @Test("an unknown key in [power] suggests the known one")
    func unknownKey() throws {
        let found = try issues([("gps_check_s = 120", "gps_check = 120")])
        #expect(found.map(\.key) == ["power.gps_check"], "\(found)")
        #expect(found.first?.hint?.contains("gps_check_s") == true, "\(found)")
    }
}
