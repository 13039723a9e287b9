/// An ISO 3166-1 alpha-2 country code (upper case), as configured for a box.
///
/// Only officially assigned codes (and `XK`, Kosovo) are accepted, so every code has a ``continent``.
public struct CountryCode: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts any case and surrounding spaces (`" de "` → `DE`).
    /// - Throws: ``DomainValidationError`` for anything that is not an assigned ISO code.
    public init(_ code: String) throws(DomainValidationError) {
        let normalised = code.trimmingSpaces().uppercased()
        guard CountryCode.continent(of: normalised) != nil else {
            throw DomainValidationError(field: "countryCode", value: code,
                                        problem: "is not an ISO 3166-1 alpha-2 country code")
        }
        rawValue = normalised
    }

    init(trusted code: String) { rawValue = code }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        do { self = try CountryCode(raw) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
