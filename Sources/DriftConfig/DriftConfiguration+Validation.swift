import DriftMesh

extension DriftConfiguration {
    /// Rules that involve more than one key. Keys that already failed are not judged again.
    func checkCrossFieldRules(_ decoder: ConfigDecoder) {
        checkMQTTRules(decoder)
        // Mesh: a key when the mesh is on, and a radio to carry it.
        if features.mesh, decoder.hasNoIssue("features.mesh") {
            if !decoder.isPresent("mesh.network_key") {
                decoder.report(.missingKey, path: "mesh.network_key",
                               message: "missing required key (required when features.mesh = true)",
                               hint: "add `network_key = \"…\"` (base64 of 32 bytes, `head -c 32 /dev/urandom | base64`) under `[mesh]`, or set features.mesh = false")
            } else if decoder.hasNoIssue("mesh.network_key"), mesh.networkKey.isEmpty {
                decoder.report(.invalidValue, path: "mesh.network_key",
                               message: "must not be empty when features.mesh = true",
                               hint: "make one with `head -c 32 /dev/urandom | base64`, or set features.mesh = false")
            }
            if radio.kind == .none, decoder.hasNoIssue("radio.kind") {
                decoder.report(.invalidValue, path: "features.mesh",
                               message: "the mesh needs a radio, but radio.kind = \"none\"",
                               hint: "set features.mesh = false or choose a radio.kind")
            }
        }

        // A beacon kit exists to announce its camp over the mesh.
        if camp.beaconKit, decoder.hasNoIssue("camp.beacon_kit") {
            if !camp.isCamp, decoder.hasNoIssue("camp.name") {
                decoder.report(.invalidValue, path: "camp.beacon_kit",
                               message: "a beacon kit announces a camp, but camp.name is empty",
                               hint: "set `name = \"…\"` under `[camp]` (at most 32 bytes), or beacon_kit = false")
            }
            if !features.mesh, decoder.hasNoIssue("features.mesh") {
                decoder.report(.invalidValue, path: "camp.beacon_kit",
                               message: "a beacon kit needs the mesh, but features.mesh = false",
                               hint: "set features.mesh = true (with a network key and a radio), or beacon_kit = false")
            }
        }

        // A beacon keeps its radio listening: the mesh is what it is for.
        if power.profile == .beacon, !features.mesh, decoder.hasNoIssue("power.profile"), decoder.hasNoIssue("features.mesh") {
            decoder.report(.invalidValue, path: "power.profile",
                           message: "the beacon profile keeps the radio listening for the mesh, but features.mesh = false",
                           hint: "set features.mesh = true (with a network key and a radio), or profile = \"default\"")
        }

        checkLineNames(decoder)

        // Fixed position: both or neither.
        if decoder.hasNoIssue("box.latitude"), decoder.hasNoIssue("box.longitude") {
            switch (box.latitude, box.longitude) {
            case (.some, .none):
                decoder.report(.invalidValue, path: "box.latitude",
                               message: "box.latitude is set but box.longitude is not; set both or neither")
            case (.none, .some):
                decoder.report(.invalidValue, path: "box.longitude",
                               message: "box.longitude is set but box.latitude is not; set both or neither")
            default:
                break
            }
        }

        // Radio frequency inside the region's band.
        if decoder.isValid("radio.frequency_mhz"), decoder.hasNoIssue("radio.region") {
            let band = radio.region.band
            if !band.contains(radio.frequencyMHz) {
                let fitting = RadioRegion.allCases.filter { $0.band.contains(radio.frequencyMHz) }.map(\.rawValue)
                decoder.report(.invalidValue, path: "radio.frequency_mhz",
                               message: "\(radio.frequencyMHz) MHz is outside the \(radio.region.rawValue) band (\(band.lowerBound)–\(band.upperBound) MHz)",
                               hint: fitting.isEmpty ? nil : "that frequency belongs to \(fitting.joined(separator: ", ")); check radio.region")
            }
        }

        // The whole channel inside one sub-band the region allows (the airtime budget's rules).
        if radio.kind != .none, decoder.isValid("radio.frequency_mhz"), decoder.hasNoIssue("radio.region"),
           decoder.hasNoIssue("radio.bandwidth_khz"), radio.region.band.contains(radio.frequencyMHz) {
            do {
                _ = try DutyCyclePolicy.forChannel(region: radio.region, frequencyMHz: radio.frequencyMHz, bandwidthHz: Double(radio.bandwidthKHz * 1_000))
            } catch {
                decoder.report(.invalidValue, path: "radio.frequency_mhz",
                               message: "\(radio.frequencyMHz) MHz at \(radio.bandwidthKHz) kHz: \(error.reason)",
                               hint: "the mesh will not transmit on it; see docs/airtime.md for the \(radio.region.rawValue) sub-bands")
            }
        }

        // `sim` ports only with simulated devices.
        if radio.port == "sim", radio.kind != .sim, decoder.hasNoIssue("radio.kind") {
            decoder.report(.invalidValue, path: "radio.port",
                           message: "`sim` is only valid with radio.kind = \"sim\", found radio.kind = \"\(radio.kind.rawValue)\"")
        }
        if gps.port == "sim", gps.kind != .sim, decoder.hasNoIssue("gps.kind") {
            decoder.report(.invalidValue, path: "gps.port",
                           message: "`sim` is only valid with gps.kind = \"sim\", found gps.kind = \"\(gps.kind.rawValue)\"")
        }

        // An E22 needs both mode lines, or neither (`""` and `""`: M0/M1 strapped to normal mode).
        if radio.kind == .e22, decoder.hasNoIssue("radio.kind") {
            let strapped = e22.m0.isEmpty && e22.m1.isEmpty && decoder.isPresent("e22.m0") && decoder.isPresent("e22.m1")
            for (key, value) in [("m0", e22.m0), ("m1", e22.m1)] where !strapped && value.isEmpty && decoder.hasNoIssue("e22.\(key)") {
                decoder.report(decoder.isPresent("e22.\(key)") ? .invalidValue : .missingKey, path: "e22.\(key)",
                               message: "the E22 \(key.uppercased()) line is required when radio.kind = \"e22\" and the other mode line is wired",
                               hint: "name the GPIO line wired to \(key.uppercased()), e.g. `GPIO22`, or set both m0 and m1 to \"\" when jumpers strap them to normal mode")
            }
            if strapped, !e22.aux.isEmpty, decoder.hasNoIssue("e22.aux") {
                decoder.report(.invalidValue, path: "e22.aux",
                               message: "e22.aux is only read when M0/M1 are wired; with m0 = m1 = \"\" set aux = \"\" too")
            }
            // The module tunes in 1 MHz steps from 850.125 (or 410.125) MHz.
            if decoder.hasNoIssue("radio.frequency_mhz"), E22.channel(frequencyMHz: radio.frequencyMHz) == nil {
                let nearest = E22.nearestFrequencyMHz(to: radio.frequencyMHz)
                decoder.report(.invalidValue, path: "radio.frequency_mhz",
                               message: "an E22 module cannot tune to \(radio.frequencyMHz) MHz: its channels are 850.125 + n MHz (n 0–80) or 410.125 + n MHz (n 0–83)",
                               hint: "the nearest it can use is \(nearest) MHz")
            }
        }

        // A BME280 needs a bus.
        if i2c.bme280, i2c.bus.isEmpty, decoder.hasNoIssue("i2c.bus") {
            decoder.report(decoder.isPresent("i2c.bus") ? .invalidValue : .missingKey, path: "i2c.bus",
                           message: "an I2C bus is required when i2c.bme280 = true",
                           hint: "e.g. `bus = \"/dev/i2c-1\"`")
        }

        // Metrics must not collide with the visitor page.
        if features.metrics, decoder.hasNoIssue("metrics.listen"), decoder.hasNoIssue("http.listen"),
           metrics.listen == http.listen {
            decoder.report(.invalidValue, path: "metrics.listen",
                           message: "metrics.listen is the same address as http.listen (\(http.listen))")
        }

        checkAccessPoint(decoder)

        // One GPIO line, one job.
        var owners: [String: String] = [:]
        let lines: [(String, String)] = [
            ("buttons.presence", buttons.presence), ("buttons.keep_alive", buttons.keepAlive),
            ("leds.status", leds.status), ("leds.bottle", leds.bottle), ("leds.radio", leds.radio),
            ("leds.gps", leds.gps), ("rain.line", rain.line),
            ("e22.m0", e22.m0), ("e22.m1", e22.m1), ("e22.aux", e22.aux),
        ]
        for (path, line) in lines where !line.isEmpty && decoder.hasNoIssue(path) {
            if let owner = owners[line] {
                decoder.report(.invalidValue, path: path, message: "line `\(line)` is already used by \(owner)")
            } else {
                owners[line] = path
            }
        }
    }

    /// `[access_point]`: the DHCP range inside the subnet and clear of the box, and a
    /// visitor page that listens where the access point's visitors arrive.
    private func checkAccessPoint(_ decoder: ConfigDecoder) {
        let ap = accessPoint
        guard decoder.hasNoIssue("access_point.address"), decoder.hasNoIssue("access_point.dhcp_start"),
              decoder.hasNoIssue("access_point.dhcp_end") else { return }
        let subnet = ap.address.description
        for (key, value) in [("dhcp_start", ap.dhcpStart), ("dhcp_end", ap.dhcpEnd)] {
            let path = "access_point.\(key)"
            let reported = decoder.isPresent(path) ? path : "access_point.address"
            if !ap.address.contains(value) || value == ap.address.network || value == ap.address.broadcast {
                decoder.report(.invalidValue, path: reported,
                               message: "the DHCP \(key == "dhcp_start" ? "start" : "end") \(IPv4Network.render(value)) is not a host address of \(subnet)",
                               hint: "set access_point.dhcp_start and dhcp_end inside \(subnet)")
                return
            }
        }
        if ap.dhcpStart > ap.dhcpEnd {
            decoder.report(.invalidValue, path: decoder.isPresent("access_point.dhcp_end") ? "access_point.dhcp_end" : "access_point.dhcp_start",
                           message: "the DHCP range ends (\(IPv4Network.render(ap.dhcpEnd))) before it starts (\(IPv4Network.render(ap.dhcpStart)))")
            return
        }
        if (ap.dhcpStart...ap.dhcpEnd).contains(ap.address.address) {
            decoder.report(.invalidValue, path: decoder.isPresent("access_point.dhcp_start") ? "access_point.dhcp_start" : "access_point.address",
                           message: "the DHCP range \(IPv4Network.render(ap.dhcpStart))–\(IPv4Network.render(ap.dhcpEnd)) contains the box's own address \(IPv4Network.render(ap.address.address))",
                           hint: "give the box an address outside the range (e.g. the subnet's first host)")
        }
        // Visitors on the access point must reach the page.
        if ap.enabled, features.visitorPage, decoder.hasNoIssue("http.listen"), decoder.hasNoIssue("access_point.enabled"),
           http.listen.host != "0.0.0.0", http.listen.host != "::", IPv4Network.parseAddress(http.listen.host) != ap.address.address {
            decoder.report(.invalidValue, path: "http.listen",
                           message: "the access point's visitors arrive at \(IPv4Network.render(ap.address.address)), but the visitor page listens on \(http.listen)",
                           hint: "listen on `0.0.0.0:80` (or `\(IPv4Network.render(ap.address.address)):80`), or set access_point.enabled = false")
        }
    }
}

extension DriftConfiguration {
    /// Every configured line (buttons, LEDs, rain gauge, E22 pins) must be one the board's chip
    /// offers (`gpio.lines` of its profile): a typo is caught by `config check`, not found on
    /// the first start as a missing LED.
    func checkLineNames(_ decoder: ConfigDecoder) {
        guard !gpio.lines.isEmpty, decoder.hasNoIssue("gpio.lines") else { return }
        let known = Set(gpio.lines)
        let configured: [(String, String)] = [
            ("buttons.presence", buttons.presence), ("buttons.keep_alive", buttons.keepAlive),
            ("leds.status", leds.status), ("leds.bottle", leds.bottle), ("leds.radio", leds.radio), ("leds.gps", leds.gps),
            ("rain.line", rain.line), ("e22.m0", e22.m0), ("e22.m1", e22.m1), ("e22.aux", e22.aux),
        ]
        for (path, line) in configured where !line.isEmpty && !known.contains(line) && decoder.hasNoIssue(path) {
            let guess = Suggestion.closest(to: line, among: gpio.lines)
            decoder.report(.invalidValue, path: path,
                           message: "no line `\(line)` on this board's GPIO chip \(gpio.chip)",
                           hint: (guess.map { "did you mean `\($0)`? " } ?? "") + "the board profile's gpio.lines lists: \(gpio.lines.joined(separator: ", ")); `\"\"` means not fitted")
        }
    }
}
