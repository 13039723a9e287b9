import Foundation

extension DriftConfiguration {
    /// `[access_point]`: the visitor Wi-Fi access point (hostapd + dnsmasq, rendered by
    /// `driftd ap render`). Visitors join it and reach the page at the box's fixed address.
    public struct AccessPoint: Sendable, Equatable {
        /// Whether the box runs the access point at all.
        public var enabled: Bool
        /// The Wi-Fi interface (`wlan0`), 1–15 bytes as the kernel names it.
        public var interface: String
        /// The network name, 1–32 UTF-8 bytes; `""` = derived from `box.name` (see ``DriftConfiguration/accessPointSSID``).
        public var ssid: String
        /// `""` = an open network; otherwise the WPA2 passphrase, 8–63 printable ASCII characters.
        public var passphrase: String
        /// The 2.4 GHz channel, 1–13 (which ones are legal depends on `box.country`).
        public var channel: Int
        /// The box's address and subnet on the interface (`10.42.0.1/24`).
        public var address: IPv4Network
        /// First and last address handed out by DHCP, inside ``address``'s subnet, not the box's own.
        public var dhcpStart: UInt32
        public var dhcpEnd: UInt32
        /// DHCP lease time in minutes (2–1440).
        public var dhcpLeaseM: Int
        /// Answer every DNS name with the box's address, so phones land on the page (captive portal).
        public var captiveDNS: Bool

        /// The default subnet and address.
        public static let defaultAddress = "10.42.0.1/24"

        init(reading r: SectionReader) {
            enabled = r.bool("enabled", default: false)
            interface = r.string("interface", default: "wlan0", check: Self.interfaceProblem)
            ssid = r.string("ssid", default: "", check: Self.ssidProblem)
            passphrase = r.string("passphrase", default: "", check: Self.passphraseProblem)
            channel = r.int("channel", default: 6, min: 1, max: 13)
            var network = IPv4Network.parse(Self.defaultAddress)!
            _ = r.string("address", default: Self.defaultAddress) { text in
                switch Self.addressProblem(text) {
                case .success(let parsed):
                    network = parsed
                    return nil
                case .failure(let problem):
                    return problem
                }
            }
            address = network
            let derived = Self.derivedRange(network)
            var start = derived.start
            var end = derived.end
            _ = r.string("dhcp_start", default: "") { text in
                Self.rangeAddress(text, into: &start)
            }
            _ = r.string("dhcp_end", default: "") { text in
                Self.rangeAddress(text, into: &end)
            }
            dhcpStart = start
            dhcpEnd = end
            dhcpLeaseM = r.int("dhcp_lease_m", default: 60, min: 2, max: 1_440)
            captiveDNS = r.bool("captive_dns", default: true)
        }

        /// The DHCP range used when `dhcp_start` / `dhcp_end` are empty: from the 10th
        /// address of the subnet to 5 below its broadcast address (`.10`–`.250` in a /24);
        /// in a small subnet, every host address above the box's own.
        public static func derivedRange(_ network: IPv4Network) -> (start: UInt32, end: UInt32) {
            let first = network.network &+ 1
            let last = network.broadcast &- 1
            if last >= first, last - first >= 30 { return (network.network + 10, network.broadcast - 5) }
            let start = min(max(network.address &+ 1, first), last)
            return (start, last)
        }

        static func rangeAddress(_ text: String, into value: inout UInt32) -> ValueProblem? {
            if text.isEmpty { return nil }
            guard let parsed = IPv4Network.parseAddress(text) else {
                return ValueProblem("must be an IPv4 address such as `10.42.0.10` (or `\"\"` for the default), found `\(text)`")
            }
            value = parsed
            return nil
        }

        static func interfaceProblem(_ name: String) -> ValueProblem? {
            if name.isEmpty || name.utf8.count > 15 {
                return ValueProblem("must be a network interface name of 1 to 15 bytes (`wlan0`), found `\(name)`")
            }
            if name == "." || name == ".." || name.unicodeScalars.contains(where: { !$0.isASCII || $0.value <= 0x20 || $0 == "/" || $0 == ":" || $0.value == 0x7F }) {
                return ValueProblem("must be a network interface name without spaces, `/` or `:` (`wlan0`), found `\(name)`")
            }
            return nil
        }

        static func ssidProblem(_ ssid: String) -> ValueProblem? {
            if ssid.utf8.count > 32 {
                return ValueProblem("must be at most 32 UTF-8 bytes (a Wi-Fi limit), found \(ssid.utf8.count)")
            }
            if ssid.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return ValueProblem("must not contain control characters")
            }
            return nil
        }

        static func passphraseProblem(_ passphrase: String) -> ValueProblem? {
            if passphrase.isEmpty { return nil }
            if !passphrase.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) {
                return ValueProblem("must be printable ASCII characters (WPA2), without accents or emoji")
            }
            if !(8...63).contains(passphrase.count) {
                return ValueProblem("must be \"\" (an open network) or 8 to 63 characters (WPA2), found \(passphrase.count)")
            }
            return nil
        }

        static func addressProblem(_ text: String) -> Result<IPv4Network, ValueProblem> {
            guard let network = IPv4Network.parse(text) else {
                return .failure(ValueProblem("must be an IPv4 address with its prefix length, such as `10.42.0.1/24`; found `\(text)`"))
            }
            guard (8...30).contains(network.prefixLength) else {
                return .failure(ValueProblem("the prefix length must be 8 to 30, found /\(network.prefixLength)"))
            }
            if network.address == network.network || network.address == network.broadcast {
                return .failure(ValueProblem("`\(text)` is the subnet's network or broadcast address, not a host address",
                                             hint: "did you mean `\(IPv4Network.render(network.network | 1))/\(network.prefixLength)`?"))
            }
            return .success(network)
        }
    }

    /// The access point's SSID: `access_point.ssid`, or `box.name` cut to 32 UTF-8 bytes
    /// at a character boundary (control characters cannot occur in either).
    public var accessPointSSID: String {
        if !accessPoint.ssid.isEmpty { return accessPoint.ssid }
        var name = ""
        for character in box.name {
            if name.utf8.count + String(character).utf8.count > 32 { break }
            name.append(character)
        }
        return name.trimmingCharacters(in: .whitespaces)
    }
}
