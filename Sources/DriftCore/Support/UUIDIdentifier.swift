import Foundation

/// A typed identifier backed by a UUID, encoded as its lowercase string form.
///
/// `BottleID`, `MessageID` and friends conform so that they share parsing, ordering
/// and `Codable` behaviour while staying distinct types that cannot be mixed up.
public protocol UUIDIdentifier: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The underlying UUID.
    var uuid: UUID { get }
    /// Wraps an existing UUID.
    init(uuid: UUID)
}

extension UUIDIdentifier {
    /// Parses the canonical 36-character UUID form (any case); `nil` if malformed.
    public init?(_ string: String) {
        guard let uuid = UUID(uuidString: string) else { return nil }
        self.init(uuid: uuid)
    }

    /// Lowercase canonical form, e.g. `0190f6c2-…`; stable across platforms.
    public var description: String { uuid.uuidString.lowercased() }

    /// The 16 raw bytes, big-endian as written in the string form.
    public var bytes: [UInt8] {
        withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }

    /// Byte-wise ordering, which for time-ordered (v7) identifiers is creation order.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let uuid = UUID(uuidString: string) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a UUID: \(string.prefix(64))")
        }
        self.init(uuid: uuid)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Builds version-7 UUIDs (48-bit Unix milliseconds, then random bits) from an injected time.
enum UUIDv7 {
    /// A v7 UUID for `date`; identifiers made later sort after earlier ones.
    static func make(at date: Date, using generator: inout some RandomNumberGenerator) -> UUID {
        let millis = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 {
            bytes[index] = UInt8(truncatingIfNeeded: millis >> (8 * (5 - index)))
        }
        for index in 6..<16 {
            bytes[index] = UInt8.random(in: 0...255, using: &generator)
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x70  // version 7
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
