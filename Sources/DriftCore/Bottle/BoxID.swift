/// The identity of a Drift Box in the mesh, as configured or derived from its key.
///
/// 1–64 ASCII letters, digits, `-`, `_` or `.`; compared exactly.
public struct BoxID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue`.
    /// - Throws: ``DomainValidationError`` when empty, too long or containing other characters.
    public init(_ rawValue: String) throws(DomainValidationError) {
        let allowed = rawValue.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
                || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }
        guard !rawValue.isEmpty, rawValue.utf8.count <= 64, allowed else {
            throw DomainValidationError(field: "boxID", value: rawValue,
                                        problem: "must be 1–64 characters of A–Z, a–z, 0–9, '-', '_', '.'")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        do { self = try BoxID(raw) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
