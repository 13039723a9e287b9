import DriftConfig
import Foundation
import Testing

/// `[e22]` register settings and the E22 frequency rule.
@Suite("E22 configuration")
struct E22ConfigTests {
    static let e22Radio = ("kind = \"sim\"\nport = \"sim\"\nbaud = 9600", "kind = \"e22\"\nport = \"/dev/ttyS2\"\nbaud = 9600")

    private func issues(_ replacements: [(String, String)]) throws -> [ConfigIssue] {
        try ConfigFixtures.simIssues(replacing: replacements)
    }

    private func load(_ replacements: [(String, String)]) throws -> DriftConfiguration {
        try ConfigFixtures.simConfig(replacing: replacements)
    }

    @Test("the defaults: address 0, net id 0, 240-byte sub-packets, no LBT, 2.4 kbps")
    func defaults() throws {
        let e22 = try load([("address = 0 ", "# address "), ("net_id = 0 ", "# net_id "), ("sub_packet_bytes = 240 ", "# x "),
                            ("lbt = false ", "# lbt "), ("air_rate_kbps = 2.4 ", "# air ")]).e22
        #expect(e22.address == 0 && e22.netID == 0 && e22.subPacketBytes == 240 && !e22.listenBeforeTalk && e22.airRateKbps == 2.4)
    }

    @Test("values in range are taken")
    func taken() throws {
        let e22 = try load([("address = 0 ", "address = 65535 "), ("net_id = 0 ", "net_id = 255 "), ("sub_packet_bytes = 240 ", "sub_packet_bytes = 64 "),
                            ("lbt = false ", "lbt = true "), ("air_rate_kbps = 2.4 ", "air_rate_kbps = 62.5 ")]).e22
        #expect(e22.address == 65_535 && e22.netID == 255 && e22.subPacketBytes == 64 && e22.listenBeforeTalk && e22.airRateKbps == 62.5)
    }

    @Test("address, net id, sub-packet size and air rate are checked", arguments: [
        ("address = 0 ", "address = 65536 ", "e22.address"),
        ("net_id = 0 ", "net_id = -1 ", "e22.net_id"),
        ("sub_packet_bytes = 240 ", "sub_packet_bytes = 100 ", "e22.sub_packet_bytes"),
        ("air_rate_kbps = 2.4 ", "air_rate_kbps = 5 ", "e22.air_rate_kbps"),
        ("lbt = false ", "lbt = 1 ", "e22.lbt"),
    ])
    func checked(old: String, new: String, key: String) throws {
        let found = try issues([(old, new)])
        #expect(found.map(\.key) == [key])
    }

    @Test("with an E22 the frequency must be 850.125 + n MHz; the error names the nearest")
    func frequency() throws {
        let found = try issues([Self.e22Radio])
        #expect(found.map(\.key) == ["radio.frequency_mhz"])
        #expect(found.first?.hint?.contains("869.125") == true)
        #expect(try issues([Self.e22Radio, ("frequency_mhz = 869.525", "frequency_mhz = 868.125")]).isEmpty)
        // The same frequency is fine for the simulated radio.
        #expect(try issues([]).isEmpty)
        #expect(DriftConfiguration.E22.channel(frequencyMHz: 433.125) == 23)
        #expect(DriftConfiguration.E22.channel(frequencyMHz: 931.125) == nil)
        #expect(DriftConfiguration.E22.nearestFrequencyMHz(to: 940) == 930.125)
    }
}
