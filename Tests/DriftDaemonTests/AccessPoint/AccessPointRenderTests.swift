import DriftConfig
import DriftDaemon
import Foundation
import TestSupport
import Testing

@Suite("Access point rendering")
struct AccessPointRenderTests {
    /// The sim board's configuration with the access point on (as a Pi's would be).
    static func config(ssid: String = "", passphrase: String = "", captive: Bool = true, name: String? = nil) -> DriftConfiguration {
        var config = ConfigLoader.loadEmbeddedDefault().configuration
        config.accessPoint.enabled = true
        config.accessPoint.ssid = ssid
        config.accessPoint.passphrase = passphrase
        config.accessPoint.captiveDNS = captive
        if let name { config.box.name = name }
        return config
    }

    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    @Test("an open network: no WPA keys, SSID from box.name, country code from box.country")
    func openNetwork() {
        let files = AccessPointFiles(config: Self.config(), source: "/config/driftd.toml")
        let hostapd = Self.lines(files.hostapd)
        #expect(hostapd.contains("interface=wlan0") && hostapd.contains("driver=nl80211"))
        #expect(hostapd.contains("ssid2=P\"Drift Box (simulated)\""))
        #expect(hostapd.contains("country_code=DE") && hostapd.contains("channel=6") && hostapd.contains("hw_mode=g"))
        #expect(hostapd.contains("wpa=0"))
        #expect(!hostapd.contains { $0.hasPrefix("wpa_passphrase") || $0.hasPrefix("wpa_key_mgmt") })
    }

    @Test("WPA2: CCMP with the passphrase")
    func wpa2() {
        let hostapd = Self.lines(AccessPointFiles(config: Self.config(ssid: "Flaschenpost", passphrase: "correct horse"), source: "x").hostapd)
        #expect(hostapd.contains("ssid2=P\"Flaschenpost\""))
        #expect(hostapd.contains("wpa=2") && hostapd.contains("wpa_key_mgmt=WPA-PSK") && hostapd.contains("rsn_pairwise=CCMP"))
        #expect(hostapd.contains("wpa_passphrase=correct horse"))
    }

    @Test("SSIDs with quotes, backslashes and UTF-8 are escaped for hostapd's P\"…\" form")
    func ssidEscaping() {
        let hostapd = AccessPointFiles(config: Self.config(ssid: #"Ü "Box" \1"#), source: "x").hostapd
        #expect(hostapd.contains(#"ssid2=P"\xc3\x9c \"Box\" \\1""#), "\(hostapd)")
        #expect(hostapd.contains("utf8_ssid=1"))
    }

    @Test("captive DNS answers every name with the box; DHCP hands out the range with the box as router and DNS")
    func captiveDNS() {
        let dnsmasq = Self.lines(AccessPointFiles(config: Self.config(), source: "x").dnsmasq)
        #expect(dnsmasq.contains("address=/#/10.42.0.1"))
        #expect(dnsmasq.contains("interface=wlan0") && dnsmasq.contains("no-resolv"))
        #expect(dnsmasq.contains("dhcp-range=10.42.0.10,10.42.0.250,255.255.255.0,60m"))
        #expect(dnsmasq.contains("dhcp-option=option:router,10.42.0.1") && dnsmasq.contains("dhcp-option=option:dns-server,10.42.0.1"))
        #expect(dnsmasq.contains("dhcp-option=114,\"http://10.42.0.1/\""))
        #expect(dnsmasq.contains("leasefile-ro"))
    }

    @Test("without captive DNS only drift.box resolves")
    func noCaptiveDNS() {
        let dnsmasq = Self.lines(AccessPointFiles(config: Self.config(captive: false), source: "x").dnsmasq)
        #expect(!dnsmasq.contains("address=/#/10.42.0.1"))
        #expect(dnsmasq.contains("address=/drift.box/10.42.0.1"))
        #expect(!dnsmasq.contains { $0.hasPrefix("dhcp-option=114") })
    }

    @Test("the networkd file gives the interface its fixed address, carrier or not")
    func network() {
        let network = Self.lines(AccessPointFiles(config: Self.config(), source: "x").network)
        #expect(network.contains("Name=wlan0") && network.contains("Address=10.42.0.1/24"))
        #expect(network.contains("ConfigureWithoutCarrier=yes") && network.contains("DHCP=no"))
    }

    @Test("a source path with a newline cannot break out of the header comment")
    func headerComment() {
        let files = AccessPointFiles(config: Self.config(), source: "/tmp/evil\ninterface=eth0")
        #expect(!Self.lines(files.hostapd).contains("interface=eth0"))
    }

    @Test("dnsmasq's own parser accepts the rendered file (dnsmasq --test)", arguments: [true, false])
    func dnsmasqAccepts(_ captive: Bool) async throws {
        guard let dnsmasq = Self.executable("dnsmasq") else {
            print("SKIP: dnsmasq is not installed (scripts/install-deps.sh installs dnsmasq-base)")
            return
        }
        let directory = try TemporaryDirectory(prefix: "ap-dnsmasq")
        defer { directory.remove() }
        let path = directory.appending("dnsmasq.conf")
        try AccessPointFiles(config: Self.config(captive: captive), source: "x").dnsmasq.write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try Self.run(dnsmasq, ["--test", "--conf-file=\(path)"])
        #expect(status == 0 && output.contains("syntax check OK"), "\(output)")
        // And it does reject nonsense (the check can fail).
        try "dhcp-range=nonsense\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try Self.run(dnsmasq, ["--test", "--conf-file=\(path)"]).status != 0)
    }

    @Test("hostapd's own parser finds no error in the rendered file (open and WPA2), when hostapd is installed",
          arguments: ["", "correct horse"])
    func hostapdAccepts(_ passphrase: String) async throws {
        guard let hostapd = Self.executable("hostapd") else {
            print("SKIP: hostapd is not installed (apt-get install hostapd)")
            return
        }
        let directory = try TemporaryDirectory(prefix: "ap-hostapd")
        defer { directory.remove() }
        var config = Self.config(ssid: #"Ü "Box""#, passphrase: passphrase)
        config.accessPoint.interface = "drifttest9"  // no such interface: hostapd stops after parsing
        let path = directory.appending("hostapd.conf")
        try AccessPointFiles(config: config, source: "x").hostapd.write(toFile: path, atomically: true, encoding: .utf8)
        let (_, output) = try Self.run(hostapd, ["-dd", path])
        #expect(output.contains("Configuration file: \(path)"), "\(output)")
        #expect(!output.contains("errors found in configuration file") && !output.contains("Line "), "\(output)")
        // A 7-character passphrase written by hand is what hostapd itself refuses.
        try (AccessPointFiles(config: config, source: "x").hostapd + "wpa=2\nwpa_passphrase=1234567\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try Self.run(hostapd, ["-dd", path]).output.contains("errors found in configuration file"))
    }

    @Test("render writes the three files 0640, disabled clears them, a missing interface renders nothing")
    func renderer() throws {
        let directory = try TemporaryDirectory(prefix: "ap-render")
        defer { directory.remove() }
        let interfaces = directory.appending("net")
        try FileManager.default.createDirectory(atPath: interfaces + "/wlan0", withIntermediateDirectories: true)
        let renderer = AccessPointRenderer(directory: directory.appending("ap"), interfacesDirectory: interfaces)
        let outcome = try renderer.render(config: Self.config(), source: "x", requireInterface: true)
        let names = ["hostapd.conf", "dnsmasq.conf", "driftbox-ap.network"]
        #expect(outcome == .rendered(names.map { directory.appending("ap/\($0)") }))
        for name in names {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appending("ap/\(name)"))
            #expect((attributes[.posixPermissions] as? Int) == 0o640, "\(name)")
        }
        var disabled = Self.config()
        disabled.accessPoint.enabled = false
        #expect(try renderer.render(config: disabled, source: "x", requireInterface: true) == .disabled)
        #expect(names.allSatisfy { !FileManager.default.fileExists(atPath: directory.appending("ap/\($0)")) })

        var other = Self.config()
        other.accessPoint.interface = "wlan7"
        #expect(try renderer.render(config: other, source: "x", requireInterface: true) == .noInterface("wlan7"))
        #expect(names.allSatisfy { !FileManager.default.fileExists(atPath: directory.appending("ap/\($0)")) })
        // Without the requirement it renders anyway (for inspection on a laptop).
        #expect(try renderer.render(config: other, source: "x", requireInterface: false) != .noInterface("wlan7"))
    }

    static func executable(_ name: String) -> String? {
        ["/usr/sbin/", "/usr/bin/", "/sbin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `path` to completion (at most a few seconds: both tools only parse here); stdout and stderr together.
    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try runToCompletion(path, arguments)
    }
}
