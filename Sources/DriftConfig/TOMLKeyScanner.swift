/// Maps every key path in a TOML document to the line where it is defined.
///
/// TOMLKit reports positions only for syntax errors, so issues about keys need
/// this small scanner. It understands `[table]` and `[[array]]` headers, dotted
/// and quoted keys, inline tables (their keys are recorded too), and skips
/// strings (including multi-line ones), arrays spanning lines and comments
/// without being fooled by `#`, `=` or `[` inside them.
///
/// It runs on documents the parser has already accepted, but it never traps
/// and always advances on malformed input; unknown constructs are skipped to
/// the end of the line. Paths are rendered with ``ConfigKeyPath``; a path that
/// appears more than once (implicit parent tables, `[[array]]` elements) keeps
/// its first line.
struct TOMLKeyScanner {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lines: [String: Int] = [:]

    /// Scans `text` and returns rendered key path → 1-based line.
    static func scan(_ text: String) -> [String: Int] {
        var scanner = TOMLKeyScanner(bytes: Array(text.utf8))
        scanner.scanDocument()
        return scanner.lines
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: - Document structure

    private mutating func scanDocument() {
        var currentTable: [String] = []
        while true {
            skipWhitespaceNewlinesAndComments()
            guard let byte = peek() else { return }
            let start = index
            if byte == UInt8(ascii: "[") {
                let headerLine = line
                let isArrayTable = peek(at: 1) == UInt8(ascii: "[")
                index += isArrayTable ? 2 : 1
                let key = parseKey()
                currentTable = key
                record(key, line: headerLine)
                skipRestOfLine()
            } else {
                let keyLine = line
                let key = parseKey()
                skipSpaces()
                if !key.isEmpty, peek() == UInt8(ascii: "=") {
                    index += 1
                    let path = currentTable + key
                    record(path, line: keyLine)
                    skipValue(path: path)
                }
                skipRestOfLine()
            }
            if index == start { advance() }
        }
    }

    /// Records `path` and its parents (first occurrence wins).
    private mutating func record(_ path: [String], line: Int) {
        guard !path.isEmpty else { return }
        for length in 1...path.count {
            let rendered = ConfigKeyPath.render(Array(path.prefix(length)))
            if lines[rendered] == nil {
                lines[rendered] = line
            }
        }
    }

    // MARK: - Keys

    /// Parses `a.b."c d".'e'` and returns its segments; stops before `=`, `]` or anything else.
    private mutating func parseKey() -> [String] {
        var segments: [String] = []
        while true {
            skipSpaces()
            guard let byte = peek() else { break }
            if byte == UInt8(ascii: "\"") {
                segments.append(parseBasicString())
            } else if byte == UInt8(ascii: "'") {
                segments.append(parseLiteralString())
            } else if Self.isBareKeyByte(byte) {
                let start = index
                while let next = peek(), Self.isBareKeyByte(next) { index += 1 }
                segments.append(String(decoding: bytes[start..<index], as: UTF8.self))
            } else {
                break
            }
            skipSpaces()
            if peek() == UInt8(ascii: ".") {
                index += 1
            } else {
                break
            }
        }
        return segments
    }

    private static func isBareKeyByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2D
    }

    /// A single-line `"…"` string with escapes decoded; the index ends after the closing quote.
    private mutating func parseBasicString() -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flushRaw() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll()
        }
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            guard byte == UInt8(ascii: "\\"), let escaped = peek() else {
                raw.append(byte)
                continue
            }
            index += 1
            flushRaw()
            switch escaped {
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "e"): scalars.append("\u{1B}")
            case UInt8(ascii: "u"), UInt8(ascii: "U"):
                let digits = escaped == UInt8(ascii: "u") ? 4 : 8
                let end = min(index + digits, bytes.count)
                let hex = String(decoding: bytes[index..<end], as: UTF8.self)
                index = end
                if let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) {
                    scalars.append(scalar)
                }
            default:
                scalars.append(Unicode.Scalar(escaped))
            }
        }
        flushRaw()
        return String(scalars)
    }

    /// A single-line `'…'` string (no escapes); the index ends after the closing quote.
    private mutating func parseLiteralString() -> String {
        index += 1
        let start = index
        while let byte = peek(), byte != UInt8(ascii: "'"), byte != UInt8(ascii: "\n") { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if peek() == UInt8(ascii: "'") { index += 1 }
        return text
    }

    // MARK: - Values

    /// Skips one value. Keys of inline tables are recorded under `path`.
    private mutating func skipValue(path: [String]?) {
        skipSpaces()
        guard let byte = peek() else { return }
        switch byte {
        case UInt8(ascii: "\""):
            if startsWith("\"\"\"") {
                skipMultilineString(quote: UInt8(ascii: "\""), escapes: true)
            } else {
                _ = parseBasicString()
            }
        case UInt8(ascii: "'"):
            if startsWith("'''") {
                skipMultilineString(quote: UInt8(ascii: "'"), escapes: false)
            } else {
                _ = parseLiteralString()
            }
        case UInt8(ascii: "["):
            skipArray()
        case UInt8(ascii: "{"):
            skipInlineTable(path: path)
        default:
            // Numbers, booleans, dates: up to the next delimiter.
            while let next = peek(), !Self.endsScalar(next) { index += 1 }
        }
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: ",")
            || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
    }

    /// Skips `"""…"""` or `'''…'''`, counting newlines; up to two extra quotes may end the content.
    private mutating func skipMultilineString(quote: UInt8, escapes: Bool) {
        index += 3
        while let byte = peek() {
            if escapes, byte == UInt8(ascii: "\\") {
                advance()
                if peek() != nil { advance() }
                continue
            }
            if byte == quote, peek(at: 1) == quote, peek(at: 2) == quote {
                index += 3
                var extra = 0
                while extra < 2, peek() == quote {
                    index += 1
                    extra += 1
                }
                return
            }
            advance()
        }
    }

    private mutating func skipArray() {
        index += 1
        while true {
            skipWhitespaceNewlinesAndComments()
            guard let byte = peek() else { return }
            if byte == UInt8(ascii: "]") {
                index += 1
                return
            }
            if byte == UInt8(ascii: ",") {
                index += 1
                continue
            }
            let start = index
            skipValue(path: nil)
            if index == start { advance() }
        }
    }

    private mutating func skipInlineTable(path: [String]?) {
        index += 1
        while true {
            skipWhitespaceNewlinesAndComments()
            guard let byte = peek() else { return }
            if byte == UInt8(ascii: "}") {
                index += 1
                return
            }
            if byte == UInt8(ascii: ",") {
                index += 1
                continue
            }
            let start = index
            let keyLine = line
            let key = parseKey()
            skipSpaces()
            if !key.isEmpty, peek() == UInt8(ascii: "=") {
                index += 1
                let inner = path.map { $0 + key }
                if let inner { record(inner, line: keyLine) }
                skipValue(path: inner)
            }
            if index == start { advance() }
        }
    }

    // MARK: - Whitespace, comments, lines

    private mutating func skipSpaces() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
            index += 1
        }
    }

    private mutating func skipWhitespaceNewlinesAndComments() {
        while let byte = peek() {
            if byte == UInt8(ascii: "#") {
                while let next = peek(), next != UInt8(ascii: "\n") { index += 1 }
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\n")
            {
                advance()
            } else {
                return
            }
        }
    }

    /// Skips to just after the next newline (the rest of a header or key/value line).
    private mutating func skipRestOfLine() {
        while let byte = peek() {
            advance()
            if byte == UInt8(ascii: "\n") { return }
        }
    }

    private mutating func advance() {
        guard index < bytes.count else { return }
        if bytes[index] == UInt8(ascii: "\n") { line += 1 }
        index += 1
    }

    private func peek(at offset: Int = 0) -> UInt8? {
        let position = index + offset
        return position < bytes.count ? bytes[position] : nil
    }

    private func startsWith(_ text: String) -> Bool {
        let prefix = Array(text.utf8)
        guard index + prefix.count <= bytes.count else { return false }
        return bytes[index..<(index + prefix.count)].elementsEqual(prefix)
    }
}
