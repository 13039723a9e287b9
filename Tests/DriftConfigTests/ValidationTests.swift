import DriftConfig
import DriftMesh
import Foundation
import Testing

/// Loads `text` as a standalone file (no board profile can be found) and returns its issues.
private func issues(in text: String, file: String = "driftd.toml") -> [ConfigIssue] {
    do {
        _ = try ConfigFixtures.loader.load(text: text, fileName: file, baseDirectory: "/nonexistent-drift-dir")
        return []
    } catch {
        return error.issues
    }
}

private func load(_ text: String) throws -> DriftConfiguration {
    try ConfigFixtures.loader.load(text: text, fileName: "driftd.toml", baseDirectory: "/nonexistent-drift-dir")
        .configuration
}

@Suite("Validation")
struct ValidationTests {
    @Test("a line name the board's chip does not offer is refused with the closest one; \"\" (not fitted) is fine")
    func lineNamesCheckedAgainstTheBoard() throws {
        let typo = try ConfigFixtures.simIssues(replacing: [("bottle = \"led-bottle\"", "bottle = \"no-such-line\""),
                                                            ("presence = \"presence\"", "presence = \"presense\"")])
        let bottle = try #require(typo.first { $0.key == "leds.bottle" }, "\(typo)")
        #expect(bottle.kind == .invalidValue && bottle.message.contains("no line `no-such-line`"))
        let presence = try #require(typo.first { $0.key == "buttons.presence" }, "\(typo)")
        #expect(presence.hint?.contains("did you mean `presence`?") == true, "\(presence)")
        #expect(try ConfigFixtures.simIssues(replacing: [("bottle = \"led-bottle\"", "bottle = \"\"")]).isEmpty)
        // On a Pi profile the header's names are the list.
        let pi = try ConfigFixtures.boardText("rpi4b").replacingOccurrences(of: "gps = \"GPIO25\"", with: "gps = \"GPIO40\"")
        let piIssues = issues(in: pi, file: "rpi4b.toml")
        #expect(piIssues.contains { $0.key == "leds.gps" && $0.message.contains("GPIO40") }, "\(piIssues)")
    }

    @Test("wrong type, unknown key and missing key: three issues with their lines")
    func threeIssues() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let text = try ConfigFixtures.simText(replacing: [
            ("timezone = \"Europe/Berlin\"\n", ""),
            ("baud = 9600", "baud = \"fast\""),
            ("bottle = \"led-bottle\"", "bottle = \"led-bottle\"\ncolour = \"red\""),
        ])
        let path = try scratch.write("driftd.toml", text)
        let report = ConfigReport.check(path: path, loader: ConfigFixtures.loader)
        #expect(report.exitCode == 1)
        #expect(report.issues.count == 3, "\(report.issues)")

        let wrongType = try #require(report.issues.first { $0.kind == .wrongType })
        #expect(wrongType.key == "radio.baud")
        #expect(wrongType.line == ConfigFixtures.line(of: "baud = \"fast\"", in: text))
        #expect(wrongType.message == "expected an integer, found a string")
        #expect(wrongType.description == "\(path):\(wrongType.line!): radio.baud: expected an integer, found a string")

        let unknown = try #require(report.issues.first { $0.kind == .unknownKey })
        #expect(unknown.key == "leds.colour")
        #expect(unknown.line == ConfigFixtures.line(of: "colour", in: text))

        let missing = try #require(report.issues.first { $0.kind == .missingKey })
        #expect(missing.key == "box.timezone")
        #expect(missing.file == path)
        // A missing key points at its table's header in the file.
        #expect(missing.line == ConfigFixtures.line(of: "[box]", in: text))

        let rendered = report.renderText()
        for issue in report.issues { #expect(rendered.contains(issue.description)) }
    }

    @Test("issues are sorted by line and all of them are reported")
    func allIssuesCollected() throws {
        let text = try ConfigFixtures.simText(replacing: [
            ("min_free_mb = 64", "min_free_mb = 0"),
            ("log_level = \"info\"", "log_level = \"loud\""),
            ("hop_limit = 7", "hop_limit = 9"),
            ("spreading_factor = 11", "spreading_factor = 6"),
            ("debounce_ms = 30", "debounce_ms = 0"),
        ])
        let found = issues(in: text)
        try #require(found.count == 5, "\(found)")
        #expect(found.map(\.key) == [
            "storage.min_free_mb", "daemon.log_level", "mesh.hop_limit", "radio.spreading_factor",
            "buttons.debounce_ms",
        ])
        #expect(found.allSatisfy { $0.kind == .invalidValue && $0.line != nil })
        #expect(found[0].message == "must be at least 1, found 0")
        #expect(found[1].hint == nil)
        #expect(found[1].message.contains("`info`"))
        #expect(found[2].message == "must be between 0 and 7, found 9")
    }

    @Test("did you mean: a key in the same table")
    func didYouMeanSameTable() throws {
        let text = try ConfigFixtures.simText(replacing: [("baud = 9600", "baudrate = 9600")])
        let found = issues(in: text)
        #expect(found.count == 1)
        #expect(found.first?.kind == .unknownKey)
        #expect(found.first?.key == "radio.baudrate")
        #expect(found.first?.hint == "did you mean `radio.baud`?")
        #expect(found.first?.line == ConfigFixtures.line(of: "baudrate", in: text))
    }

    @Test("did you mean: a key that belongs in another table")
    func didYouMeanOtherTable() throws {
        let text = try ConfigFixtures.simText(replacing: [("coding_rate = 5", "coding_rate = 5\nmax_hdop = 2.0")])
        let found = issues(in: text)
        #expect(found.count == 1)
        #expect(found.first?.key == "radio.max_hdop")
        #expect(found.first?.hint?.hasPrefix("did you mean `gps.max_hdop`?") == true)
    }

    @Test("did you mean: a misspelt table")
    func didYouMeanTable() throws {
        let text = try ConfigFixtures.simText(replacing: [("[onewire]", "[one_wire]")])
        let found = issues(in: text)
        let unknown = try #require(found.first { $0.kind == .unknownKey })
        #expect(unknown.key == "one_wire")
        #expect(unknown.message == "unknown table [one_wire]")
        #expect(unknown.hint == "did you mean `[onewire]`?")
        #expect(unknown.line == ConfigFixtures.line(of: "[one_wire]", in: text))
    }

    @Test("did you mean: a key written above every table")
    func didYouMeanRootKey() throws {
        let text = "hop_limit = 2\n" + (try ConfigFixtures.simText())
        let found = issues(in: text)
        #expect(found.count == 1)
        #expect(found.first?.key == "hop_limit")
        #expect(found.first?.line == 1)
        #expect(found.first?.hint?.hasPrefix("did you mean `mesh.hop_limit`?") == true)
    }

    @Test("a section that is not a table is one wrong-type issue, not a cascade")
    func sectionNotATable() throws {
        let text = "storage = \"./var\"\n" + (try ConfigFixtures.simText(replacing: [
            ("[storage]\ndata_dir = \"./var\"            # relative to the working directory\nmin_free_mb = 64\n", ""),
        ]))
        let found = issues(in: text)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.kind == .wrongType)
        #expect(found.first?.key == "storage")
        #expect(found.first?.message == "expected a table, found a string")
    }

    @Test("syntax errors carry the parser's line and column")
    func syntaxError() throws {
        let text = "[box]\nname = \"unterminated\ncountry = \"DE\"\n"
        let found = issues(in: text)
        #expect(found.count == 1)
        let issue = try #require(found.first)
        #expect(issue.kind == .syntax)
        #expect(issue.line == 2)
        #expect(issue.column != nil)
        #expect(issue.description.hasPrefix("driftd.toml:2:"))
    }

    @Test("hex integers work; addresses other than 0x76/0x77 are refused")
    func hexIntegers() throws {
        let good = try load(ConfigFixtures.simText(replacing: [("bme280_address = 0x76", "bme280_address = 0x77")]))
        #expect(good.i2c.bme280Address == 0x77)
        let decimal = try load(ConfigFixtures.simText(replacing: [("bme280_address = 0x76", "bme280_address = 118")]))
        #expect(decimal.i2c.bme280Address == 0x76)
        let found = issues(in: try ConfigFixtures.simText(replacing: [("bme280_address = 0x76", "bme280_address = 0x78")]))
        #expect(found.map(\.message) == ["must be 0x76 or 0x77, found 0x78"])
    }

    @Test("type messages say what was expected and what was found")
    func typeMessages() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [
            ("watchdog = true", "watchdog = \"yes\""),
            ("frequency_mhz = 869.525", "frequency_mhz = \"869.525\""),
            ("min_free_mb = 64", "min_free_mb = 64.5"),
            ("radio_peers = []", "radio_peers = \"127.0.0.1:1\""),
            ("name = \"Drift Box (simulated)\"", "name = 7"),
        ]))
        let messages = Dictionary(uniqueKeysWithValues: found.map { ($0.key, $0.message) })
        #expect(messages["daemon.watchdog"] == "expected a boolean, found a string")
        #expect(found.first { $0.key == "daemon.watchdog" }?.hint == "write `true` or `false` without quotes")
        #expect(messages["radio.frequency_mhz"] == "expected a number, found a string")
        #expect(messages["storage.min_free_mb"] == "expected an integer, found a floating-point number")
        #expect(messages["sim.radio_peers"] == "expected an array of strings, found a string")
        #expect(messages["box.name"] == "expected a string, found an integer")
        #expect(found.allSatisfy { $0.kind == .wrongType })
    }

    @Test("an integer is accepted where a number is expected")
    func integerForFloat() throws {
        let config = try load(ConfigFixtures.simText(replacing: [("frequency_mhz = 869.525", "frequency_mhz = 869")]))
        #expect(config.radio.frequencyMHz == 869.0)
    }

    @Test("defaults apply to absent optional keys")
    func defaults() throws {
        let config = try load(ConfigFixtures.simText(replacing: [
            ("min_free_mb = 64\n", ""), ("debounce_ms = 30\n", ""), ("frequency_mhz = 869.525\n", ""),
            ("[metrics]\nlisten = \"127.0.0.1:9101\"\n", ""), ("hop_limit = 7                 # relays at most; 7 = the header's limit (the router prunes)\n", ""),
            ("paced_repair = true           # a box that missed a packet asks its neighbours within minutes\n", ""),
            ("topology_plan = false         # relays planned on the whole mesh (trial: docs/mesh-routing.md)\n", ""),
        ]))
        #expect(config.storage.minFreeMB == 64)
        #expect(config.buttons.debounce == .milliseconds(30))
        #expect(config.radio.frequencyMHz == RadioRegion.eu868.defaultFrequencyMHz)
        #expect(config.metrics.listen == HostPort(host: "127.0.0.1", port: 9101))
        #expect(config.mesh.hopLimit == 7, "the header's limit: the router prunes relays")
        #expect(config.mesh.pacedRepair, "on since issue 19")
        let off = try load(ConfigFixtures.simText(replacing: [("paced_repair = true ", "paced_repair = false")]))
        #expect(!off.mesh.pacedRepair)
        let typo = issues(in: try ConfigFixtures.simText(replacing: [("paced_repair = true ", "paced_repair = 1    ")]))
        #expect(typo.first?.key == "mesh.paced_repair")
        // Relays planned on the topology: a trial, off unless a box's config turns it on.
        #expect(!config.mesh.topologyPlan)
        let planned = try load(ConfigFixtures.simText(replacing: [("topology_plan = false", "topology_plan = true ")]))
        #expect(planned.mesh.topologyPlan)
        let planTypo = issues(in: try ConfigFixtures.simText(replacing: [("topology_plan = false", "topology_plan = 1    ")]))
        #expect(planTypo.first?.key == "mesh.topology_plan")
        // The hello interval is left out by default: the daemon picks it by the duty cycle.
        #expect(config.mesh.helloIntervalS == nil)
        let hello = try load(ConfigFixtures.simText(replacing: [("# hello_interval_s = 300 ", "hello_interval_s = 600 ")]))
        #expect(hello.mesh.helloIntervalS == 600)
        let zero = issues(in: try ConfigFixtures.simText(replacing: [("# hello_interval_s = 300 ", "hello_interval_s = 0 ")]))
        #expect(zero.first?.key == "mesh.hello_interval_s")
    }

    @Test("country codes: ISO list, uppercase")
    func countryCodes() throws {
        #expect(try load(ConfigFixtures.simText(replacing: [("country = \"DE\"", "country = \"NZ\"")])).box.country == "NZ")
        let lower = issues(in: try ConfigFixtures.simText(replacing: [("country = \"DE\"", "country = \"de\"")]))
        #expect(lower.first?.hint == "did you mean `DE`?")
        let uk = issues(in: try ConfigFixtures.simText(replacing: [("country = \"DE\"", "country = \"UK\"")]))
        #expect(uk.first?.hint == "did you mean `GB`?")
        let bogus = issues(in: try ConfigFixtures.simText(replacing: [("country = \"DE\"", "country = \"QQ\"")]))
        #expect(bogus.first?.kind == .invalidValue)
        #expect(bogus.first?.key == "box.country")
    }

    @Test("time zones are validated by Foundation")
    func timeZones() throws {
        let utc = try load(ConfigFixtures.simText(replacing: [("timezone = \"Europe/Berlin\"", "timezone = \"UTC\"")]))
        #expect(utc.box.timezone == "UTC")
        let berlin = try load(ConfigFixtures.simText())
        #expect(berlin.box.timeZone.identifier == "Europe/Berlin")
        let wrongCase = issues(in: try ConfigFixtures.simText(replacing: [
            ("timezone = \"Europe/Berlin\"", "timezone = \"europe/berlin\""),
        ]))
        #expect(wrongCase.first?.key == "box.timezone")
        #expect(wrongCase.first?.hint == "did you mean `Europe/Berlin`?")
        let nonsense = issues(in: try ConfigFixtures.simText(replacing: [
            ("timezone = \"Europe/Berlin\"", "timezone = \"Mars/Olympus_Mons\""),
        ]))
        #expect(nonsense.first?.kind == .invalidValue)
    }

    @Test("listen addresses: host:port and [v6]:port")
    func listenAddresses() throws {
        let v6 = try load(ConfigFixtures.simText(replacing: [("listen = \"127.0.0.1:8080\"", "listen = \"[::1]:8080\"")]))
        #expect(v6.http.listen == HostPort(host: "::1", port: 8080))
        #expect(v6.http.listen.description == "[::1]:8080")
        let bare = issues(in: try ConfigFixtures.simText(replacing: [("listen = \"127.0.0.1:8080\"", "listen = \"::1:8080\"")]))
        #expect(bare.first?.message.contains("brackets") == true)
        let port = issues(in: try ConfigFixtures.simText(replacing: [("listen = \"127.0.0.1:8080\"", "listen = \"127.0.0.1:70000\"")]))
        #expect(port.first?.key == "http.listen")
        #expect(port.first?.message.contains("1 to 65535") == true)
    }

    @Test("mesh network keys must be base64 of 32 bytes")
    func networkKeys() throws {
        let short = issues(in: try ConfigFixtures.simText(replacing: [
            ("network_key = \"ZHJpZnQtc2ltLXRlc3Qta2V5LWRvLW5vdC1kZXBsb3k=\"", "network_key = \"c2hvcnQ=\""),
        ]))
        #expect(short.first?.message == "must decode to exactly 32 bytes, found 5")
        let garbage = issues(in: try ConfigFixtures.simText(replacing: [
            ("network_key = \"ZHJpZnQtc2ltLXRlc3Qta2V5LWRvLW5vdC1kZXBsb3k=\"", "network_key = \"not base64!\""),
        ]))
        #expect(garbage.first?.key == "mesh.network_key")
        #expect(garbage.first?.hint?.contains("/dev/urandom") == true)
    }

    @Test("GPIO lines are names, not numbers")
    func numberedLine() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [("presence = \"presence\"", "presence = \"17\"")]))
        #expect(found.first?.key == "buttons.presence")
        #expect(found.first?.hint == "did you mean `GPIO17`?")
    }

    @Test("enumerations suggest the nearest value")
    func enumerationHint() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [("backend = \"sim\"", "backend = \"libgpio\"")]))
        #expect(found.first?.key == "gpio.backend")
        #expect(found.first?.hint == "did you mean `libgpiod`?")
    }
}

@Suite("Cross-field rules")
struct CrossFieldTests {
    private let key = "network_key = \"ZHJpZnQtc2ltLXRlc3Qta2V5LWRvLW5vdC1kZXBsb3k=\"\n"

    @Test("the mesh key is required when the mesh is on")
    func meshKeyRequired() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [(key, "")]))
        #expect(found.count == 1)
        #expect(found.first?.kind == .missingKey)
        #expect(found.first?.key == "mesh.network_key")
        #expect(found.first?.message.contains("features.mesh = true") == true)
    }

    @Test("no mesh key is fine when the mesh is off")
    func meshKeyNotRequiredWhenOff() throws {
        let config = try load(ConfigFixtures.simText(replacing: [(key, ""), ("mesh = true", "mesh = false")]))
        #expect(config.mesh.networkKey.isEmpty)
        #expect(!config.features.mesh)
    }

    @Test("an empty mesh key with the mesh on is refused")
    func emptyMeshKey() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [(key, "network_key = \"\"\n")]))
        #expect(found.map(\.key) == ["mesh.network_key"])
        #expect(found.first?.kind == .invalidValue)
    }

    @Test("the mesh needs a radio")
    func meshNeedsRadio() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [("kind = \"sim\"\nport = \"sim\"\nbaud = 9600", "kind = \"none\"\nbaud = 9600")]))
        #expect(found.map(\.key) == ["features.mesh"])
    }

    @Test("latitude and longitude come in pairs")
    func positionPairs() throws {
        let onlyLatitude = issues(in: try ConfigFixtures.simText(replacing: [("board = \"sim\"", "board = \"sim\"\nlatitude = 52.5")]))
        #expect(onlyLatitude.map(\.key) == ["box.latitude"])
        #expect(onlyLatitude.first?.message.contains("both or neither") == true)
        let onlyLongitude = issues(in: try ConfigFixtures.simText(replacing: [("board = \"sim\"", "board = \"sim\"\nlongitude = 13.4")]))
        #expect(onlyLongitude.map(\.key) == ["box.longitude"])
        let both = try load(ConfigFixtures.simText(replacing: [("board = \"sim\"", "board = \"sim\"\nlatitude = 52.5\nlongitude = 13.4")]))
        #expect(both.box.latitude == 52.5)
        #expect(both.box.longitude == 13.4)
        let outOfRange = issues(in: try ConfigFixtures.simText(replacing: [("board = \"sim\"", "board = \"sim\"\nlatitude = 95.0\nlongitude = 13.4")]))
        #expect(outOfRange.map(\.key) == ["box.latitude"])
        #expect(outOfRange.first?.message == "must be between -90 and 90, found 95")
    }

    @Test("the radio frequency must be inside the region's band")
    func frequencyInBand() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [("frequency_mhz = 869.525", "frequency_mhz = 915.0")]))
        #expect(found.map(\.key) == ["radio.frequency_mhz"])
        #expect(found.first?.message.contains("outside the EU868 band") == true)
        #expect(found.first?.hint?.contains("US915") == true)
        let us = try load(ConfigFixtures.simText(replacing: [
            ("frequency_mhz = 869.525", "frequency_mhz = 915.0"), ("region = \"EU868\"", "region = \"US915\""),
        ]))
        #expect(us.radio.region == .us915)
    }

    @Test("the whole channel must sit in one sub-band the region allows (the airtime rules)")
    func channelInSubBand() throws {
        // 869.3 MHz ± 125 kHz straddles the 0.1 % and 10 % sub-bands: the mesh could not transmit.
        let found = issues(in: try ConfigFixtures.simText(replacing: [("frequency_mhz = 869.525", "frequency_mhz = 869.3")]))
        #expect(found.map(\.key) == ["radio.frequency_mhz"])
        #expect(found.first?.message.contains("not inside one allowed sub-band") == true, "\(found)")
        #expect(found.first?.hint?.contains("docs/airtime.md") == true)
        // 868.3 MHz ± 125 kHz lies in 868.0–868.6 (1 %).
        #expect(issues(in: try ConfigFixtures.simText(replacing: [("frequency_mhz = 869.525", "frequency_mhz = 868.3")])).isEmpty)
        // Without a radio, nothing to check.
        let noRadio = try ConfigFixtures.simText(replacing: [
            ("frequency_mhz = 869.525", "frequency_mhz = 869.3"), ("kind = \"sim\"\nport = \"sim\"\nbaud = 9600", "kind = \"none\"\nport = \"sim\"\nbaud = 9600"),
        ])
        #expect(!issues(in: noRadio).contains { $0.key == "radio.frequency_mhz" })
    }

    @Test("the region is required when there is a radio, optional without one")
    func regionRequired() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [("region = \"EU868\"\n", "")]))
        #expect(found.map(\.key) == ["radio.region"])
        #expect(found.first?.kind == .missingKey)
        let noRadio = try load(ConfigFixtures.simText(replacing: [
            ("region = \"EU868\"\n", ""), ("kind = \"sim\"\nport = \"sim\"", "kind = \"none\"\nport = \"auto\""),
            ("mesh = true", "mesh = false"),
        ]))
        #expect(noRadio.radio.kind == .none)
    }

    @Test("`sim` ports only with simulated devices")
    func simPorts() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [
            ("kind = \"sim\"\nport = \"sim\"\nbaud = 9600", "kind = \"meshtastic\"\nport = \"sim\"\nbaud = 9600"),
            ("kind = \"sim\"\nport = \"sim\"\nbaud = 0", "kind = \"nmea\"\nport = \"sim\"\nbaud = 0"),
        ]))
        #expect(found.map(\.key) == ["radio.port", "gps.port"])
    }

    @Test("an E22 radio needs its M0 and M1 lines")
    func e22Lines() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [
            ("kind = \"sim\"\nport = \"sim\"\nbaud = 9600", "kind = \"e22\"\nport = \"/dev/ttyS2\"\nbaud = 9600"),
            ("m0 = \"e22-m0\"", "m0 = \"\""), ("m1 = \"e22-m1\"", "# m1 removed"),
            ("frequency_mhz = 869.525", "frequency_mhz = 868.125"),
        ]))
        #expect(found.count == 2)
        #expect(found.first { $0.key == "e22.m0" }?.kind == .invalidValue)
        #expect(found.first { $0.key == "e22.m1" }?.kind == .missingKey)
    }

    @Test("an E22 with both mode lines empty is strapped to normal mode; AUX then cannot be read")
    func e22Strapped() throws {
        let e22 = ("kind = \"sim\"\nport = \"sim\"\nbaud = 9600", "kind = \"e22\"\nport = \"/dev/ttyS2\"\nbaud = 9600")
        let frequency = ("frequency_mhz = 869.525", "frequency_mhz = 868.125")
        let strapped = try load(ConfigFixtures.simText(replacing: [
            e22, frequency, ("m0 = \"e22-m0\"", "m0 = \"\""), ("m1 = \"e22-m1\"", "m1 = \"\""), ("aux = \"e22-aux\"", "aux = \"\""),
        ]))
        #expect(strapped.e22.m0.isEmpty && strapped.e22.m1.isEmpty)
        let withAux = issues(in: try ConfigFixtures.simText(replacing: [
            e22, frequency, ("m0 = \"e22-m0\"", "m0 = \"\""), ("m1 = \"e22-m1\"", "m1 = \"\""),
        ]))
        #expect(withAux.map(\.key) == ["e22.aux"])
        let oneLine = issues(in: try ConfigFixtures.simText(replacing: [e22, frequency, ("m1 = \"e22-m1\"", "m1 = \"\"")]))
        #expect(oneLine.map(\.key) == ["e22.m1"])
    }

    @Test("a BME280 needs an I2C bus")
    func bme280NeedsBus() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [("bus = \"sim\"", "bus = \"\"")]))
        #expect(found.map(\.key) == ["i2c.bus"])
        let off = try load(ConfigFixtures.simText(replacing: [("bus = \"sim\"", "bus = \"\""), ("bme280 = true", "bme280 = false")]))
        #expect(!off.i2c.bme280)
    }

    @Test("metrics cannot share the visitor page's address")
    func metricsAddress() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [
            ("metrics = false", "metrics = true"), ("listen = \"127.0.0.1:9101\"", "listen = \"127.0.0.1:8080\""),
        ]))
        #expect(found.map(\.key) == ["metrics.listen"])
    }

    @Test("one GPIO line, one job")
    func duplicateLines() throws {
        let text = try ConfigFixtures.simText(replacing: [("radio = \"led-radio\"", "radio = \"led-status\"")])
        let found = issues(in: text)
        #expect(found.map(\.key) == ["leds.radio"])
        #expect(found.first?.message == "line `led-status` is already used by leds.status")
        #expect(found.first?.line == ConfigFixtures.line(of: "radio = \"led-status\"", in: text))
    }

    @Test("the shutdown budget stays below systemd's stop timeout")
    func shutdownTimeout() throws {
        let found = issues(in: try ConfigFixtures.simText(replacing: [("shutdown_timeout_s = 10", "shutdown_timeout_s = 90")]))
        #expect(found.first?.message == "must be between 1 and 85, found 90")
    }
}
