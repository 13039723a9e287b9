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
