/// A well-formed BCP 47 language tag (RFC 5646), e.g. `en`, `de-CH`, `zh-Hant-TW`, `sr-Latn-RS`.
///
/// Checks syntax (language with up to three extlangs, script, region, variants,
/// extensions, private use; no duplicate variants or extension singletons) and
/// stores the canonical case (`zh-hant-tw` → `zh-Hant-TW`). It does not check the
/// IANA registry: unknown but well-formed subtags are accepted, which is what a
/// client-side translator needs. Irregular grandfathered tags (`i-klingon`) are refused.
public struct LanguageTag: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Longest accepted tag, characters.
    public static let maximumLength = 64
    public let rawValue: String

    /// Parses and canonicalises.
    /// - Throws: ``DomainValidationError`` naming the offending subtag.
    public init(_ tag: String) throws(DomainValidationError) {
        guard !tag.isEmpty, tag.utf8.count <= LanguageTag.maximumLength else {
            throw DomainValidationError(field: "language", value: tag, problem: "must be a BCP 47 tag of 1–64 characters")
        }
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        for subtag in subtags where subtag.isEmpty || subtag.utf8.count > 8 || !subtag.utf8.allSatisfy(LanguageTag.isAlphanumeric) {
            throw DomainValidationError(field: "language", value: tag, problem: "subtag '\(subtag)' must be 1–8 letters or digits")
        }
        rawValue = try LanguageTag.canonical(subtags, tag: tag).joined(separator: "-")
    }

    public var description: String { rawValue }

    /// The primary language subtag, e.g. `de` for `de-CH` (`x` for private-use tags).
    public var language: String {
        String(rawValue.prefix { $0 != "-" })
    }

    // MARK: - Grammar

    static func canonical(_ subtags: [String], tag: String) throws(DomainValidationError) -> [String] {
        func fail(_ problem: String) -> DomainValidationError {
            DomainValidationError(field: "language", value: tag, problem: problem)
        }
        var out: [String] = []
        var index = 0
        let lower = subtags.map { $0.lowercased() }

        if lower[0] == "x" { return try privateUse(lower, from: 0, tag: tag) }

        // language
        let first = lower[0]
        guard isAlpha(first), (2...3).contains(first.count) || (4...8).contains(first.count) else {
            throw fail("'\(subtags[0])' is not a language subtag")
        }
        out.append(first)
        index = 1
        if first.count <= 3 {
            var extlangs = 0
            while index < lower.count, extlangs < 3, lower[index].count == 3, isAlpha(lower[index]) {
                out.append(lower[index])
                index += 1
                extlangs += 1
            }
        }
        // script
        if index < lower.count, lower[index].count == 4, isAlpha(lower[index]) {
            out.append(lower[index].prefix(1).uppercased() + lower[index].dropFirst())
            index += 1
        }
        // region
        if index < lower.count,
           (lower[index].count == 2 && isAlpha(lower[index])) || (lower[index].count == 3 && isDigits(lower[index])) {
            out.append(lower[index].uppercased())
            index += 1
        }
        // variants
        var variants = Set<String>()
        while index < lower.count, isVariant(lower[index]) {
            guard variants.insert(lower[index]).inserted else { throw fail("variant '\(lower[index])' repeats") }
            out.append(lower[index])
            index += 1
        }
        // extensions
        var singletons = Set<String>()
        while index < lower.count, lower[index].count == 1, lower[index] != "x" {
            let singleton = lower[index]
            guard singletons.insert(singleton).inserted else { throw fail("extension '\(singleton)' repeats") }
            out.append(singleton)
            index += 1
            var parts = 0
            while index < lower.count, (2...8).contains(lower[index].count) {
                out.append(lower[index])
                index += 1
                parts += 1
            }
            guard parts > 0 else { throw fail("extension '\(singleton)' is empty") }
        }
        if index < lower.count, lower[index] == "x" {
            return out + (try privateUse(lower, from: index, tag: tag))
        }
        guard index == lower.count else { throw fail("unexpected subtag '\(subtags[index])'") }
        return out
    }

    static func privateUse(_ lower: [String], from start: Int, tag: String) throws(DomainValidationError) -> [String] {
        guard lower.count > start + 1 else {
            throw DomainValidationError(field: "language", value: tag, problem: "private use 'x' needs a subtag")
        }
        return Array(lower[start...])
    }

    static func isVariant(_ subtag: String) -> Bool {
        if (5...8).contains(subtag.count) { return true }
        guard subtag.count == 4, let first = subtag.utf8.first else { return false }
        return first >= 0x30 && first <= 0x39
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    static func isAlpha(_ text: String) -> Bool {
        text.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
    }

    static func isDigits(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        do { self = try LanguageTag(raw) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
