/// Finds a Meshtastic node among the serial ports by USB vendor and product id
/// (`radio.port = "auto"`).
///
/// Known ids — USB-serial bridges and native USB of the boards Meshtastic runs on:
/// - `10c4:ea60` Silicon Labs CP210x (Heltec V2/V3, T-Beam, LILYGO T3 …)
/// - `1a86:7523` and `1a86:55d4` WCH CH340 / CH9102 (T-Beam 1.1+, Heltec V3 variants, Station G1)
/// - `303a:1001` Espressif ESP32-S3 native USB (T-Deck, Heltec Wireless Stick Lite V3 …)
/// - `239a:*` Adafruit nRF52 bootloader / CDC (RAK4631, T-Echo …)
///
/// Several boards use generic bridges, so a match is a good guess, not proof: the
/// handshake tells.
public enum MeshtasticPortFinder {
    /// `(vendor, product)`; a `nil` product matches every product of the vendor.
    public static let knownIDs: [(vendor: UInt16, product: UInt16?)] = [
        (0x10C4, 0xEA60),
        (0x1A86, 0x7523),
        (0x1A86, 0x55D4),
        (0x303A, 0x1001),
        (0x239A, nil),
    ]

    /// Whether a port's USB id is one of ``knownIDs``.
    public static func matches(_ port: SerialPortInfo) -> Bool {
        guard let vendor = port.usbVendorID else { return false }
        return knownIDs.contains { known in
            known.vendor == vendor && (known.product == nil || known.product == port.usbProductID)
        }
    }

    /// The first matching port in path order, or `nil`.
    public static func find(in ports: [SerialPortInfo]) -> SerialPortInfo? {
        ports.sorted { $0.path < $1.path }.first(where: matches)
    }
}
