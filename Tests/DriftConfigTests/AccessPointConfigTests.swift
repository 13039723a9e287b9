import DriftConfig
import Foundation
import Testing

@Suite("[access_point] configuration")
struct AccessPointConfigTests {
    private static let enabledLine = "enabled = false               # no Wi-Fi on the simulated board; `driftd ap render` still works"

    private func load(_ replacements: [(String, String)]) throws -> DriftConfiguration {
        try ConfigFixtures.simConfig(replacing: replacements)
    }

    private func issues(_ replacements: [(String, String)]) throws -> [ConfigIssue] {
        try ConfigFixtures.simIssues(replacing: replacements)
    }

    @Test("defaults on the sim board: off, wlan0, open, channel 6, 10.42.0.1/24, DHCP .10–.250, captive DNS")
    func defaults() throws {
        let config = try load([])
        let ap = config.accessPoint
        #expect(!ap.enabled && ap.interface == "wlan0" && ap.ssid == "" && ap.passphrase == "" && ap.channel == 6)
        #expect(ap.address == IPv4Network.parse("10.42.0.1/24"))
        #expect(IPv4Network.render(ap.dhcpStart) == "10.42.0.10" && IPv4Network.render(ap.dhcpEnd) == "10.42.0.250")
        #expect(ap.dhcpLeaseM == 60 && ap.captiveDNS)
        #expect(config.accessPointSSID == "Drift Box (simulated)")
    }

    @Test("an installer's file over rpi4b without the section: the access point is on, its SSID is box.name")
    func emptySection() throws {
        let config = try ConfigFixtures.loader.load(text: "[box]\nboard = \"rpi4b\"\nname = \"Box\"\ncountry = \"DE\"\ntimezone = \"UTC\"\n",
                                                    fileName: "driftd.toml", baseDirectory: ConfigFixtures.repositoryRoot).configuration
        #expect(config.accessPoint.enabled, "rpi4b turns the access point on")
        #expect(config.accessPointSSID == "Box")
    }

    @Test("the Raspberry Pi profiles enable it; sim and x86_64-qemu do not", arguments: ConfigFixtures.boardNames)
    func boards(_ name: String) throws {
        let config = try ConfigFixtures.loader.load(path: ConfigFixtures.boardPath(name)).configuration
        #expect(config.accessPoint.enabled == name.hasPrefix("rpi"), "\(name)")
    }

    @Test("the SSID from box.name is cut to 32 UTF-8 bytes at a character boundary")
    func derivedSSID() throws {
        let name = "Flaschenpost am Tempelhofer Feld Süd"  // 37 bytes
        let config = try load([("name = \"Drift Box (simulated)\"", "name = \"\(name)\"")])
        #expect(config.accessPointSSID == "Flaschenpost am Tempelhofer Feld")
        let umlauts = String(repeating: "ü", count: 20)  // 40 bytes: 16 characters fit
        let other = try load([("name = \"Drift Box (simulated)\"", "name = \"\(umlauts)\"")])
        #expect(other.accessPointSSID == String(repeating: "ü", count: 16))
    }

    @Test("a WPA2 network with its own SSID, channel and subnet")
    func wpa2() throws {
        let ap = try load([
            (Self.enabledLine, "enabled = true"),
            ("http]\nlisten = \"127.0.0.1:8080\"", "http]\nlisten = \"0.0.0.0:8080\""),
            ("ssid = \"\"", "ssid = \"Flaschenpost\""),
            ("passphrase = \"\"", "passphrase = \"correct horse\""),
            ("channel = 6", "channel = 11"),
            ("address = \"10.42.0.1/24\"", "address = \"192.168.7.1/28\""),
        ]).accessPoint
        #expect(ap.enabled && ap.ssid == "Flaschenpost" && ap.passphrase == "correct horse" && ap.channel == 11)
        // A /28 is too small for .10–(broadcast−5): every host above the box.
        #expect(IPv4Network.render(ap.dhcpStart) == "192.168.7.2" && IPv4Network.render(ap.dhcpEnd) == "192.168.7.14")
    }

    @Test("a 33-byte SSID is refused (counted in bytes)")
    func longSSID() throws {
        let found = try issues([("ssid = \"\"", "ssid = \"\(String(repeating: "s", count: 33))\"")])
        #expect(found.map(\.key) == ["access_point.ssid"], "\(found)")
        #expect(found.first?.message.contains("32 UTF-8 bytes") == true)
        let accented = try issues([("ssid = \"\"", "ssid = \"\(String(repeating: "é", count: 17))\"")])
        #expect(accented.map(\.key) == ["access_point.ssid"], "\(accented)")
    }

    @Test("passphrases: 7 characters, 64 characters, non-ASCII are refused; 8 and 63 accepted", arguments: [
        ("1234567", false), (String(repeating: "p", count: 64), false), ("pässwort123", false),
        ("12345678", true), (String(repeating: "p", count: 63), true),
    ])
    func passphrase(_ passphrase: String, _ accepted: Bool) throws {
        let found = try issues([("passphrase = \"\"", "passphrase = \"\(passphrase)\"")])
        #expect(found.map(\.key) == (accepted ? [] : ["access_point.passphrase"]), "\(found)")
    }

    @Test("bad addresses, interfaces, channels and ranges are refused", arguments: [
        ("address = \"10.42.0.1/24\"", "address = \"10.42.0.1\"", "access_point.address"),
        ("address = \"10.42.0.1/24\"", "address = \"10.42.0.256/24\"", "access_point.address"),
        ("address = \"10.42.0.1/24\"", "address = \"10.42.0.1/31\"", "access_point.address"),
        ("address = \"10.42.0.1/24\"", "address = \"10.42.0.0/24\"", "access_point.address"),
        ("address = \"10.42.0.1/24\"", "address = \"010.42.0.1/24\"", "access_point.address"),
        ("interface = \"wlan0\"", "interface = \"wlan 0\"", "access_point.interface"),
        ("interface = \"wlan0\"", "interface = \"a-very-long-interface\"", "access_point.interface"),
        ("channel = 6 ", "channel = 14 ", "access_point.channel"),
        ("dhcp_start = \"\"", "dhcp_start = \"10.42.1.10\"", "access_point.dhcp_start"),
        ("dhcp_end = \"\"", "dhcp_end = \"10.42.0.5\"", "access_point.dhcp_end"),
        ("dhcp_start = \"\"", "dhcp_start = \"10.42.0.1\"", "access_point.dhcp_start"),
        ("dhcp_start = \"\"", "dhcp_start = \"ten\"", "access_point.dhcp_start"),
        ("dhcp_lease_m = 60", "dhcp_lease_m = 1", "access_point.dhcp_lease_m"),
    ])
    func invalid(_ find: String, _ replace: String, _ key: String) throws {
        let found = try issues([(find, replace)])
        #expect(found.map(\.key) == [key], "\(found)")
    }

    @Test("an enabled access point needs the visitor page listening where visitors arrive")
    func listenReachable() throws {
        let found = try issues([(Self.enabledLine, "enabled = true")])
        #expect(found.map(\.key) == ["http.listen"], "\(found)")
        #expect(found.first?.message.contains("10.42.0.1") == true)
        let onAddress = try issues([(Self.enabledLine, "enabled = true"),
                                    ("http]\nlisten = \"127.0.0.1:8080\"", "http]\nlisten = \"10.42.0.1:80\"")])
        #expect(onAddress.isEmpty, "\(onAddress)")
    }

    @Test("IPv4Network parses, renders and contains")
    func network() throws {
        let network = try #require(IPv4Network.parse("10.42.0.1/24"))
        #expect(IPv4Network.render(network.network) == "10.42.0.0" && IPv4Network.render(network.broadcast) == "10.42.0.255")
        #expect(IPv4Network.render(network.mask) == "255.255.255.0" && network.description == "10.42.0.1/24")
        #expect(network.contains(IPv4Network.parseAddress("10.42.0.77")!) && !network.contains(IPv4Network.parseAddress("10.42.1.1")!))
        for bad in ["", "1.2.3", "1.2.3.4.5", "1.2.3.4/", "1.2.3.4/33", "a.b.c.d/8", "1..2.3/8", "-1.2.3.4/8"] {
            #expect(IPv4Network.parse(bad) == nil, "\(bad)")
        }
    }
}
