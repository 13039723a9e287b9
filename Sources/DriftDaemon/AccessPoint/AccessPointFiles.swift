import DriftConfig
import Foundation

/// The visitor access point's configuration files, rendered from `[access_point]`.
///
/// `hostapd.conf` (the Wi-Fi network: SSID, WPA2 or open, channel, `country_code` from
/// `box.country`), `dnsmasq.conf` (DHCP for visitors and, with `captive_dns`, every DNS
/// name answered with the box's address) and `driftbox-ap.network` (systemd-networkd:
/// the interface's fixed address). Pure text; ``AccessPointRenderer`` writes them.
public struct AccessPointFiles: Sendable, Equatable {
    public static let hostapdName = "hostapd.conf"
    public static let dnsmasqName = "dnsmasq.conf"
    public static let networkName = "driftbox-ap.network"
    /// The name visitors can type when `captive_dns` is off.
    public static let localName = "drift.box"

    public var hostapd: String
    public var dnsmasq: String
    public var network: String

    /// Every file as (name, text), in the order they are written.
    public var files: [(name: String, text: String)] {
        [(Self.hostapdName, hostapd), (Self.dnsmasqName, dnsmasq), (Self.networkName, network)]
    }

    /// Renders the three files for `config`; `source` names the config file in the headers.
    public init(config: DriftConfiguration, source: String) {
        let ap = config.accessPoint
        let boxAddress = IPv4Network.render(ap.address.address)
        let header = "# Rendered by `driftd ap render` from \(Self.comment(source)). Do not edit: edit [access_point] in driftd.toml.\n"

        var hostapd = header
        hostapd += "interface=\(ap.interface)\n"
        hostapd += "driver=nl80211\n"
        hostapd += "ssid2=\(Self.hostapdString(config.accessPointSSID))\n"
        hostapd += "utf8_ssid=1\n"
        hostapd += "country_code=\(config.box.country)\n"
        hostapd += "ieee80211d=1\n"
        hostapd += "hw_mode=g\n"
        hostapd += "channel=\(ap.channel)\n"
        hostapd += "ieee80211n=1\n"
        hostapd += "wmm_enabled=1\n"
        hostapd += "auth_algs=1\n"
        hostapd += "ignore_broadcast_ssid=0\n"
        hostapd += "macaddr_acl=0\n"
        hostapd += "# Visitors cannot reach each other's phones, only the box.\n"
        hostapd += "ap_isolate=1\n"
        if ap.passphrase.isEmpty {
            hostapd += "# An open network (access_point.passphrase = \"\").\n"
            hostapd += "wpa=0\n"
        } else {
            hostapd += "wpa=2\n"
            hostapd += "wpa_key_mgmt=WPA-PSK\n"
            hostapd += "rsn_pairwise=CCMP\n"
            hostapd += "wpa_passphrase=\(ap.passphrase)\n"
        }
        self.hostapd = hostapd

        var dnsmasq = header
        dnsmasq += "interface=\(ap.interface)\n"
        dnsmasq += "except-interface=lo\n"
        dnsmasq += "bind-dynamic\n"
        dnsmasq += "# No upstream: the box answers for itself only.\n"
        dnsmasq += "no-resolv\n"
        dnsmasq += "no-hosts\n"
        if ap.captiveDNS {
            dnsmasq += "# Captive DNS: every name is the box, so phones open the page by themselves.\n"
            dnsmasq += "address=/#/\(boxAddress)\n"
        } else {
            dnsmasq += "address=/\(Self.localName)/\(boxAddress)\n"
        }
        let netmask = IPv4Network.render(ap.address.mask)
        dnsmasq += "dhcp-range=\(IPv4Network.render(ap.dhcpStart)),\(IPv4Network.render(ap.dhcpEnd)),\(netmask),\(ap.dhcpLeaseM)m\n"
        dnsmasq += "dhcp-option=option:router,\(boxAddress)\n"
        dnsmasq += "dhcp-option=option:dns-server,\(boxAddress)\n"
        if ap.captiveDNS {
            dnsmasq += "# RFC 8910 captive-portal URL.\n"
            dnsmasq += "dhcp-option=114,\"http://\(boxAddress)/\"\n"
        }
        dnsmasq += "dhcp-authoritative\n"
        dnsmasq += "# Leases live in memory only: nothing about visitors is written to the card.\n"
        dnsmasq += "leasefile-ro\n"
        self.dnsmasq = dnsmasq

        var network = header
        network += "[Match]\n"
        network += "Name=\(ap.interface)\n\n"
        network += "[Link]\n"
        network += "RequiredForOnline=no\n\n"
        network += "[Network]\n"
        network += "Address=\(ap.address)\n"
        network += "DHCP=no\n"
        network += "LinkLocalAddressing=no\n"
        network += "IPv6AcceptRA=no\n"
        network += "ConfigureWithoutCarrier=yes\n"
        network += "IgnoreCarrierLoss=yes\n"
        self.network = network
    }

    /// hostapd's printf-escaped string form `P"…"`: `\` and `"` escaped, every byte outside
    /// printable ASCII as `\xHH`, so any UTF-8 SSID survives one line of the file.
    static func hostapdString(_ text: String) -> String {
        var escaped = "P\""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): escaped += "\\\\"
            case UInt8(ascii: "\""): escaped += "\\\""
            case 0x20...0x7E: escaped.append(Character(Unicode.Scalar(byte)))
            default: escaped += String(format: "\\x%02x", byte)
            }
        }
        return escaped + "\""
    }

    /// `text` safe for a one-line comment.
    static func comment(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
    }
}
