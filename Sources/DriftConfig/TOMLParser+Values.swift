/// Values: strings, arrays, inline tables; numbers, booleans and dates are in `TOMLParser+Scalars.swift`.
extension TOMLParser {
    /// Parses one value. `depth` is how deeply it is nested; `path` is its key path when its
    /// inline-table keys should be recorded in `lines` (nil inside arrays).
    mutating func parseValue(depth: Int, path: [String]?) throws(TOMLSyntaxError) -> TOMLNode {
        guard let byte = peek() else {
            throw error(at: index, "expected a value, found the end of the file")
        }
        switch byte {
        case UInt8(ascii: "\""):
            return .string(startsWith("\"\"\"") ? try parseMultilineString(quote: UInt8(ascii: "\"")) : try parseBasicString())
        case UInt8(ascii: "'"):
            return .string(startsWith("'''") ? try parseMultilineString(quote: UInt8(ascii: "'")) : try parseLiteralString())
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            guard depth < Self.maxDepth else {
                throw error(at: index, "the value is nested too deeply (more than \(Self.maxDepth) levels)")
            }
            return byte == UInt8(ascii: "[") ? try parseArray(depth: depth + 1) : try parseInlineTable(depth: depth + 1, path: path)
        default:
            return try parseScalar()
        }
    }

    // MARK: - Arrays and inline tables

    /// `[1, 2, ]` — across lines, with comments, a trailing comma and mixed types.
    private mutating func parseArray(depth: Int) throws(TOMLSyntaxError) -> TOMLNode {
        let start = index
        index += 1
        var elements: [TOMLNode] = []
        while true {
            try skipWhitespaceAndComments()
            guard let byte = peek() else {
                throw error(at: start, "unterminated array (missing `]`)")
            }
            if byte == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            elements.append(try parseValue(depth: depth, path: nil))
            try skipWhitespaceAndComments()
            switch peek() {
            case UInt8(ascii: ",")?:
                index += 1
            case UInt8(ascii: "]")?:
                index += 1
                return .array(elements)
            case nil:
                throw error(at: start, "unterminated array (missing `]`)")
            default:
                throw error(at: index, "expected `,` or `]` in the array, found \(describe(at: index))")
            }
        }
    }

    /// `{ a = 1, b.c = "x" }` — on one line, no trailing comma (TOML 1.0); closed once parsed.
    private mutating func parseInlineTable(depth: Int, path: [String]?) throws(TOMLSyntaxError) -> TOMLNode {
        let start = index
        index += 1
        let table = appendTable(.explicit)
        skipSpaces()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return .table([:])
        }
        while true {
            skipSpaces()
            let keyStart = index
            let key = try parseKey(maxParts: Self.maxDepth - depth)
            skipSpaces()
            guard peek() == UInt8(ascii: "=") else {
                throw error(at: index, "expected `=` after the key `\(ConfigKeyPath.render(key))`, found \(describe(at: index))")
            }
            index += 1
            skipSpaces()
            let fullPath = (path ?? []) + key
            if let path { record(path + key, line: line(at: keyStart)) }
            let value = try parseValue(depth: depth + key.count, path: path.map { $0 + key })
            try insert(value, key: key, in: table, fullPath: fullPath, at: keyStart)
            skipSpaces()
            switch peek() {
            case UInt8(ascii: ",")?:
                let comma = index
                index += 1
                skipSpaces()
                if peek() == UInt8(ascii: "}") {
                    throw error(at: comma, "an inline table cannot end with a comma (TOML 1.0)")
                }
            case UInt8(ascii: "}")?:
                index += 1
                return .table(materialize(table: table))
            case nil:
                throw error(at: start, "unterminated inline table (missing `}`)")
            case UInt8(ascii: "\n")?, UInt8(ascii: "\r")?, UInt8(ascii: "#")?:
                throw error(at: index, "an inline table must be on one line; use a [table] for longer ones")
            default:
                throw error(at: index, "expected `,` or `}` in the inline table, found \(describe(at: index))")
            }
        }
    }

    // MARK: - Strings

    /// `"…"` with escapes; the index ends after the closing quote.
    mutating func parseBasicString() throws(TOMLSyntaxError) -> String {
        let start = index
        index += 1
        var buffer: [UInt8] = []
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else {
                throw error(at: start, "unterminated string (missing closing `\"` on this line)")
            }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            default:
                try appendStringByte(byte, to: &buffer)
            }
        }
    }

    /// `'…'` without escapes; the index ends after the closing quote.
    mutating func parseLiteralString() throws(TOMLSyntaxError) -> String {
        let start = index
        index += 1
        var buffer: [UInt8] = []
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else {
                throw error(at: start, "unterminated literal string (missing closing `'` on this line)")
            }
            if byte == UInt8(ascii: "'") {
                index += 1
                return String(decoding: buffer, as: UTF8.self)
            }
            try appendStringByte(byte, to: &buffer)
        }
    }

    /// `"""…"""` (with escapes and line-ending backslashes) or `'''…'''` (literal).
    ///
    /// A newline right after the opening quotes is dropped; CRLF becomes LF; up to two
    /// quotes may directly precede the closing three.
    private mutating func parseMultilineString(quote: UInt8) throws(TOMLSyntaxError) -> String {
        let start = index
        let escapes = quote == UInt8(ascii: "\"")
        index += 3
        if startsWith("\n") {
            index += 1
        } else if startsWith("\r\n") {
            index += 2
        }
        var buffer: [UInt8] = []
        while true {
            guard let byte = peek() else {
                let delimiter = escapes ? "\"\"\"" : "'''"
                throw error(at: start, "unterminated multi-line string (missing closing `\(delimiter)`)")
            }
            switch byte {
            case quote:
                var run = 0
                while peek(at: run) == quote { run += 1 }
                if run < 3 {
                    buffer.append(contentsOf: repeatElement(quote, count: run))
                    index += run
                } else if run <= 5 {
                    buffer.append(contentsOf: repeatElement(quote, count: run - 3))
                    index += run
                    return String(decoding: buffer, as: UTF8.self)
                } else {
                    throw error(at: index, "too many quotes: at most two may come before the closing three")
                }
            case UInt8(ascii: "\\") where escapes:
                if try !skipLineEndingBackslash() {
                    try parseEscape(into: &buffer)
                }
            case UInt8(ascii: "\n"):
                buffer.append(byte)
                index += 1
            case UInt8(ascii: "\r"):
                guard peek(at: 1) == UInt8(ascii: "\n") else {
                    throw error(at: index, "a carriage return must be followed by a newline")
                }
                buffer.append(UInt8(ascii: "\n"))
                index += 2
            default:
                try appendStringByte(byte, to: &buffer)
            }
        }
    }

    /// At a `\` followed by optional spaces and a line end: skips it and all whitespace after; true.
    /// At any other `\`: leaves the index alone; false.
    private mutating func skipLineEndingBackslash() throws(TOMLSyntaxError) -> Bool {
        var offset = 1
        while let byte = peek(at: offset), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { offset += 1 }
        let atLineEnd = peek(at: offset) == UInt8(ascii: "\n")
            || (peek(at: offset) == UInt8(ascii: "\r") && peek(at: offset + 1) == UInt8(ascii: "\n"))
        guard atLineEnd else { return false }
        index += offset
        try skipStringWhitespace()
        return true
    }

    /// Skips spaces, tabs and newlines inside a multi-line string after a line-ending backslash.
    private mutating func skipStringWhitespace() throws(TOMLSyntaxError) {
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                index += 1
            case UInt8(ascii: "\r"):
                guard peek(at: 1) == UInt8(ascii: "\n") else {
                    throw error(at: index, "a carriage return must be followed by a newline")
                }
                index += 2
            default:
                return
            }
        }
    }

    /// Appends one byte of string content, refusing control characters.
    private mutating func appendStringByte(_ byte: UInt8, to buffer: inout [UInt8]) throws(TOMLSyntaxError) {
        if Self.isForbiddenControl(byte) {
            throw error(at: index, "control character \(Self.unicodeName(byte)) is not allowed in a string; write it as an escape such as \\u001B")
        }
        buffer.append(byte)
        index += 1
    }

    /// Decodes the escape at the index (`\n`, `\u00E9`, …) into `buffer`.
    private mutating func parseEscape(into buffer: inout [UInt8]) throws(TOMLSyntaxError) {
        let start = index
        index += 1
        guard let letter = peek() else {
            throw error(at: start, "unterminated string (a `\\` at the end of the file)")
        }
        index += 1
        let simple: UInt8? =
            switch letter {
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "t"): 0x09
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "\""): UInt8(ascii: "\"")
            case UInt8(ascii: "\\"): UInt8(ascii: "\\")
            default: nil
            }
        if let simple {
            buffer.append(simple)
            return
        }
        guard letter == UInt8(ascii: "u") || letter == UInt8(ascii: "U") else {
            throw error(at: start, "invalid escape \(describe(at: start + 1).replacingBackquote("\\")) in a string (valid: \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)")
        }
        let count = letter == UInt8(ascii: "u") ? 4 : 8
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let digit = peek().flatMap(Self.hexValue) else {
                throw error(at: start, "`\\\(Character(Unicode.Scalar(letter)))` needs exactly \(count) hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw error(at: start, "escape `\\\(Character(Unicode.Scalar(letter)))\(String(value, radix: 16, uppercase: true))` is not a Unicode scalar value")
        }
        buffer.append(contentsOf: String(Character(scalar)).utf8)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

private extension String {
    /// "`x`" → "`\x`": puts `prefix` just inside the opening backquote.
    func replacingBackquote(_ prefix: String) -> String {
        guard hasPrefix("`") else { return self }
        return "`" + prefix + dropFirst()
    }
}
