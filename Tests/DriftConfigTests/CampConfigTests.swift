import DriftConfig
import Foundation
import Testing

@Suite("[camp] configuration")
struct CampConfigTests {
    private func load(_ replacements: [(String, String)]) throws -> DriftConfiguration {
        try ConfigFixtures.simConfig(replacing: replacements)
    }

    private func issues(_ replacements: [(String, String)]) throws -> [ConfigIssue] {
        try ConfigFixtures.simIssues(replacing: replacements)
    }

    @Test("defaults: no camp, the announce interval left to the channel, forgotten after 24 h, no beacon kit")
    func defaults() throws {
        let camp = try load([]).camp
        #expect(camp.name == "" && !camp.isCamp && camp.members == 0 && camp.note == "")
        #expect(camp.announceIntervalS == nil && camp.forgetAfterH == 24 && camp.forgetAfterS == 0)
        #expect(try load([("# announce_interval_s = 300 ", "announce_interval_s = 600 ")]).camp.announceIntervalS == 600)
        #expect(camp.forgetAfter == .seconds(86_400))
        #expect(!camp.beaconKit && !camp.meshtasticText)
    }

    @Test("a beacon kit with a name, members, note and a seconds forget override")
    func beaconKit() throws {
        let camp = try load([
            ("name = \"\"\nmembers = 0", "name = \"Camp Wüste\"\nmembers = 42"),
            ("note = \"\"", "note = \"blue tent\""),
            ("forget_after_s = 0", "forget_after_s = 20"),
            ("beacon_kit = false", "beacon_kit = true"),
        ]).camp
        #expect(camp.name == "Camp Wüste" && camp.isCamp && camp.members == 42 && camp.note == "blue tent" && camp.beaconKit)
        #expect(camp.forgetAfter == .seconds(20))
    }

    @Test("a name over 32 UTF-8 bytes is refused (counted in bytes, not characters)")
    func nameBytes() throws {
        let name = String(repeating: "é", count: 17)  // 17 characters, 34 bytes
        let found = try issues([("name = \"\"\nmembers = 0", "name = \"\(name)\"\nmembers = 0")])
        #expect(found.map(\.key) == ["camp.name"], "\(found)")
        #expect(found.first?.message.contains("32 UTF-8 bytes") == true)
    }

    @Test("members, interval, forget settings outside their ranges are refused", arguments: [
        ("members = 0", "members = 65536", "camp.members"),
        ("# announce_interval_s = 300 ", "announce_interval_s = 59 ", "camp.announce_interval_s"),
        ("forget_after_h = 24", "forget_after_h = 0", "camp.forget_after_h"),
        ("forget_after_s = 0", "forget_after_s = 5", "camp.forget_after_s"),
        ("note = \"\"", "note = \"\(String(repeating: "n", count: 65))\"", "camp.note"),
    ])
    func ranges(_ find: String, _ replace: String, _ key: String) throws {
        let found = try issues([(find, replace)])
        #expect(found.map(\.key) == [key], "\(found)")
    }

    @Test("a beacon kit needs a camp name")
    func beaconKitNeedsName() throws {
        let found = try issues([("beacon_kit = false", "beacon_kit = true")])
        #expect(found.map(\.key) == ["camp.beacon_kit"], "\(found)")
        #expect(found.first?.message.contains("camp.name is empty") == true)
    }

    @Test("a beacon kit needs the mesh")
    func beaconKitNeedsMesh() throws {
        let found = try issues([
            ("name = \"\"\nmembers = 0", "name = \"Kit\"\nmembers = 0"),
            ("beacon_kit = false", "beacon_kit = true"),
            ("mesh = true", "mesh = false"),
        ])
        #expect(found.map(\.key) == ["camp.beacon_kit"], "\(found)")
        #expect(found.first?.message.contains("features.mesh = false") == true)
    }
}
