import Foundation
import TestSupport
import Testing

/// The boot-time commands the image's units run: `driftd identity init` (driftbox-firstboot.service)
/// and `driftd ap render` (driftbox-ap.service), as child processes of the built binary.
@Suite("Boot commands")
struct BootCommandTests {
    /// A field tester's driftd.toml over the rpi4b profile of this checkout.
    static func piConfig(in directory: TemporaryDirectory, extra: String = "") throws -> String {
        let path = directory.appending("driftd.toml")
        try """
        [box]
        board = "\(DriftdProcess.packageRoot)/board/rpi4b.toml"
        name = "Flaschenpost"
        country = "FR"
        timezone = "Europe/Paris"
        \(extra)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("identity init twice: the same box id, the store, mesh key and marker present")
    func identityInitTwice() async throws {
        let directory = try TemporaryDirectory(prefix: "boot-identity")
        defer { directory.remove() }
        let config = try Self.piConfig(in: directory)
        let data = directory.appending("data/driftd")
        let first = try await DriftdProcess.runToCompletion(["identity", "init", "--config", config, "--data-dir", data])
        #expect(first.status == 0, "\(first.stderr)")
        let id = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.hasPrefix("box-") && id.count == 14, "\(first.stdout)")
        for name in ["drift.sqlite", "mesh.key", ".identity", "driftd.last-good.toml"] {
            #expect(FileManager.default.fileExists(atPath: data + "/" + name), "\(name)")
        }
        let marker = try String(contentsOfFile: data + "/.identity", encoding: .utf8)
        let second = try await DriftdProcess.runToCompletion(["identity", "init", "--config", config, "--data-dir", data, "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any]
        #expect(report?["boxID"] as? String == id && report?["created"] as? Bool == false, "\(second.stdout)")
        #expect(try String(contentsOfFile: data + "/.identity", encoding: .utf8) == marker)
    }

    @Test("identity init with a broken config runs on the last known good copy; without one it fails with the problems")
    func identityInitFallback() async throws {
        let directory = try TemporaryDirectory(prefix: "boot-identity-lkg")
        defer { directory.remove() }
        let config = try Self.piConfig(in: directory)
        let data = directory.appending("data")
        let first = try await DriftdProcess.runToCompletion(["identity", "init", "--config", config, "--data-dir", data])
        try "[box]\nname = 5\n".write(toFile: config, atomically: true, encoding: .utf8)
        let again = try await DriftdProcess.runToCompletion(["identity", "init", "--config", config, "--data-dir", data])
        #expect(again.status == 0 && again.stdout == first.stdout, "\(again.stderr)")
        #expect(again.stderr.contains("last known good"))
        let fresh = try await DriftdProcess.runToCompletion(["identity", "init", "--config", config, "--data-dir", directory.appending("other")])
        #expect(fresh.status == 1 && fresh.stderr.contains("box.name"), "\(fresh.stderr)")
    }

    @Test("ap render over rpi4b: hostapd, dnsmasq and networkd files with the box's name and country")
    func apRender() async throws {
        let directory = try TemporaryDirectory(prefix: "boot-ap")
        defer { directory.remove() }
        let config = try Self.piConfig(in: directory, extra: "[access_point]\npassphrase = \"correct horse\"\n")
        let out = directory.appending("run/ap")
        let result = try await DriftdProcess.runToCompletion(["ap", "render", "--config", config, "--data-dir", directory.appending("data"), "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"Flaschenpost\" on wlan0 at 10.42.0.1/24 (WPA2)"), "\(result.stdout)")
        let hostapd = try String(contentsOfFile: out + "/hostapd.conf", encoding: .utf8)
        #expect(hostapd.contains("ssid2=P\"Flaschenpost\"\n") && hostapd.contains("country_code=FR\n") && hostapd.contains("wpa_passphrase=correct horse\n"))
        #expect(try String(contentsOfFile: out + "/dnsmasq.conf", encoding: .utf8).contains("address=/#/10.42.0.1\n"))
        #expect(try String(contentsOfFile: out + "/driftbox-ap.network", encoding: .utf8).contains("Address=10.42.0.1/24\n"))
    }

    @Test("ap render skips cleanly: disabled, or no such interface with --skip-without-interface")
    func apRenderSkips() async throws {
        let directory = try TemporaryDirectory(prefix: "boot-ap-skip")
        defer { directory.remove() }
        let out = directory.appending("ap")
        let noInterface = try Self.piConfig(in: directory, extra: "[access_point]\ninterface = \"wlan-none9\"\n")
        let skipped = try await DriftdProcess.runToCompletion(["ap", "render", "--config", noInterface, "--data-dir", directory.appending("data"),
                                                               "--out", out, "--skip-without-interface"])
        #expect(skipped.status == 0 && skipped.stdout.contains("no interface wlan-none9"), "\(skipped.stdout) \(skipped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/hostapd.conf"))
        // The embedded sim board has the access point off.
        let disabled = try await DriftdProcess.runToCompletion(["ap", "render", "--out", out])
        #expect(disabled.status == 0 && disabled.stdout.contains("disabled"), "\(disabled.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out + "/dnsmasq.conf"))
    }

    @Test("ap render refuses an invalid [access_point] with the key and line")
    func apRenderInvalid() async throws {
        let directory = try TemporaryDirectory(prefix: "boot-ap-bad")
        defer { directory.remove() }
        let config = try Self.piConfig(in: directory, extra: "[access_point]\nssid = \"\(String(repeating: "s", count: 33))\"\n")
        let result = try await DriftdProcess.runToCompletion(["ap", "render", "--config", config, "--data-dir", directory.appending("data"), "--out", directory.appending("ap")])
        #expect(result.status == 1 && result.stderr.contains("access_point.ssid") && result.stderr.contains("driftd.toml:7"), "\(result.stderr)")
    }
}
