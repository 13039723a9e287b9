/// The one rule for text a visitor writes that other visitors will see: bottle texts,
/// hints (the bottle's and its conditions') and chat lines. Pure; every route that stores
/// visitor text passes it through ``normalised(_:field:)`` before the domain's own checks
/// (length, line breaks) run.
///
/// - Bidirectional embedding, override and isolate controls (U+202A–U+202E,
///   U+2066–U+2069) and tag characters (U+E0000–U+E007F) are removed: they let one line
///   reorder or hide what the lines around it say, and nothing a visitor writes needs them.
/// - Text with nothing visible — only whitespace, zero-width and other default-ignorable
///   characters, controls and the characters above — is refused (`422 invalid`): it would
///   be an empty bubble or an empty bottle that looks like something.
///
/// Empty text stays empty: whether a field may be left out is the route's and the domain's
/// business (a chat line with an attachment needs no text).
public enum VisitorText {
    /// Whether `scalar` is removed before storing.
    public static func isRemoved(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0xE0000...0xE007F: true
        default: false
        }
    }

    /// Whether `scalar` shows nothing on its own: whitespace, default-ignorable code points
    /// (zero-width space, joiners, word joiner, BOM, bidi marks and controls, variation
    /// selectors, tag characters, Hangul fillers…), controls and format characters.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isWhitespace || properties.isDefaultIgnorableCodePoint { return true }
        switch properties.generalCategory {
        case .control, .format: return true
        default: return isRemoved(scalar)
        }
    }

    /// Whether `text` is non-empty and shows nothing.
    public static func isInvisible(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(isInvisible)
    }

    /// `text` without the removed characters.
    public static func stripped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isRemoved) else { return text }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: text.unicodeScalars.lazy.filter { !isRemoved($0) })
        return String(out)
    }

    /// The text to store: the removed characters taken out.
    /// - Throws: `422 invalid` (`field`) when the text is not empty but shows nothing.
    public static func normalised(_ text: String, field: String) throws(APIError) -> String {
        guard !isInvisible(text) else {
            throw APIError.invalid(field: field, problem: "shows nothing (only spaces, invisible or direction-control characters)")
        }
        return stripped(text)
    }

    /// ``normalised(_:field:)`` for an optional text.
    public static func normalised(_ text: String?, field: String) throws(APIError) -> String? {
        guard let text else { return nil }
        let result: String = try normalised(text, field: field)
        return result
    }
}
