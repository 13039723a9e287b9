/// Renders TOML key paths the same way everywhere (scanner, merged tree, issues).
///
/// Bare-key segments are written as they are; any other segment is quoted, so
/// `[servers."eu.west"]` becomes `servers."eu.west"` and never collides with `servers.eu.west`.
enum ConfigKeyPath {
    static func render(_ segments: [String]) -> String {
        segments.map(renderSegment).joined(separator: ".")
    }

    static func join(_ prefix: String, _ segment: String) -> String {
        prefix.isEmpty ? renderSegment(segment) : prefix + "." + renderSegment(segment)
    }

    static func renderSegment(_ segment: String) -> String {
        if isBare(segment) { return segment }
        return TOMLWriter.quoted(segment)
    }

    /// True when `segment` may be written as a TOML bare key (`A-Za-z0-9_-`, not empty).
    static func isBare(_ segment: String) -> Bool {
        !segment.isEmpty && segment.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2D
        }
    }
}
