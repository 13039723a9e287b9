/// Shared text checks for bottle text, hints and chat lines.
enum TextRules {
    static func check(_ text: String, field: String, maximumLength: Int, maximumBytes: Int,
                      allowLineBreaks: Bool) throws(DomainValidationError) {
        guard text.utf8.count <= maximumBytes, text.count <= maximumLength else {
            throw DomainValidationError(field: field, value: String(text.prefix(40)),
                                        problem: "is longer than \(maximumLength) characters")
        }
        for scalar in text.unicodeScalars where scalar.properties.generalCategory == .control {
            let allowed = allowLineBreaks && (scalar == "\n" || scalar == "\t" || scalar == "\r")
            guard allowed else {
                throw DomainValidationError(field: field, value: String(text.prefix(40)),
                                            problem: "contains a control character (U+\(String(scalar.value, radix: 16, uppercase: true)))")
            }
        }
    }
}
