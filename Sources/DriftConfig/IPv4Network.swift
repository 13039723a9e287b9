/// An IPv4 address with its prefix length (`10.42.0.1/24`): an interface address and its subnet.
public struct IPv4Network: Sendable, Equatable, CustomStringConvertible {
    /// The address, host byte order (`10.42.0.1` is `0x0A2A0001`).
    public var address: UInt32
    /// Prefix length, 0–32.
    public var prefixLength: Int

    public init(address: UInt32, prefixLength: Int) {
        precondition((0...32).contains(prefixLength), "an IPv4 prefix is 0-32 bits")
        self.address = address
        self.prefixLength = prefixLength
    }

    /// The netmask (`255.255.255.0` for /24).
    public var mask: UInt32 { prefixLength == 0 ? 0 : UInt32.max << UInt32(32 - prefixLength) }
    /// The network address (host bits cleared).
    public var network: UInt32 { address & mask }
    /// The broadcast address (host bits set).
    public var broadcast: UInt32 { network | ~mask }

    /// Whether `other` lies inside this subnet.
    public func contains(_ other: UInt32) -> Bool { other & mask == network }

    /// `10.42.0.1/24`.
    public var description: String { "\(Self.render(address))/\(prefixLength)" }

    /// Dotted-quad form of `address`.
    public static func render(_ address: UInt32) -> String {
        [24, 16, 8, 0].map { String((address >> UInt32($0)) & 0xFF) }.joined(separator: ".")
    }

    /// Parses a dotted quad (`10.42.0.1`): four decimal numbers 0–255, no leading zeros.
    public static func parseAddress(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  part == "0" || !part.hasPrefix("0"), let byte = UInt32(part), byte <= 255
            else { return nil }
            value = value << 8 | byte
        }
        return value
    }

    /// Parses `a.b.c.d/nn`; `nil` when either half is malformed.
    public static func parse(_ text: String) -> IPv4Network? {
        let halves = text.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, let address = parseAddress(String(halves[0])),
              halves[1].count <= 2, halves[1].allSatisfy({ $0.isASCII && $0.isNumber }),
              let prefix = Int(halves[1]), (0...32).contains(prefix)
        else { return nil }
        return IPv4Network(address: address, prefixLength: prefix)
    }
}
