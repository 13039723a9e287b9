/// A TOML 1.0 parser in pure Swift: text → ``TOMLDocument`` or a ``TOMLSyntaxError``.
///
/// Supports the whole of TOML 1.0: comments, bare/quoted/dotted keys, `[table]`,
/// `[[array of tables]]`, inline tables, arrays, all four string forms with every
/// escape, integers (decimal, `0x`, `0o`, `0b`, `_`), floats (`inf`, `nan`,
/// exponents), booleans, and dates and times (validated, kept as their text in
/// ``TOMLNode/dateTime(_:)``). A leading BOM is skipped. Duplicate keys and
/// redefined tables are errors. TOML 1.1 additions (`\e`, multi-line inline
/// tables, times without seconds) are refused, as TOML 1.0 requires.
///
/// Hostile input cannot hurt the caller: the parser never traps, works in one
/// pass over the bytes (no quadratic paths), and refuses documents nested more
/// than ``maxDepth`` levels deep (arrays, inline tables and key parts together),
/// so recursion here and in code walking the tree stays shallow.
struct TOMLParser {
    /// The deepest nesting accepted: key parts, table headers, arrays and inline tables together.
    static let maxDepth = 64

    /// Parses `text`; the first problem found is thrown with its line and column.
    static func parse(_ text: String) throws(TOMLSyntaxError) -> TOMLDocument {
        var parser = TOMLParser(bytes: Array(text.utf8))
        try parser.parseDocument()
        return TOMLDocument(root: parser.materialize(table: 0), lines: parser.lines)
    }

    /// How a table came to exist; decides whether a header or dotted key may define it again.
    enum TableKind {
        /// Created as a parent by a header such as `[a.b]` (for `a`); a later `[a]` may define it.
        case implicit
        /// Defined by its own header, or an inline table, or the root.
        case explicit
        /// Created by a dotted key (`a.b = 1` creates `a`); only more dotted keys may add to it.
        case dotted
    }

    /// A value in a table under construction.
    enum Slot {
        case value(TOMLNode)
        /// Index into `tables`.
        case table(Int)
        /// Index into `tableArrays`.
        case tableArray(Int)
    }

    struct Table {
        var kind: TableKind
        var entries: [String: Slot] = [:]
    }

    let bytes: [UInt8]
    var index = 0
    /// Offsets of every `\n`, to turn an offset into a line by binary search.
    let newlines: [Int]
    /// Tables under construction; 0 is the root. Inline tables use it too while they are parsed.
    var tables: [Table] = [Table(kind: .explicit)]
    /// Arrays of tables: indices into `tables`, in order.
    var tableArrays: [[Int]] = []
    var lines: [String: Int] = [:]

    init(bytes: [UInt8]) {
        self.bytes = bytes
        var newlines: [Int] = []
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            newlines.append(offset)
        }
        self.newlines = newlines
    }

    // MARK: - Document structure

    mutating func parseDocument() throws(TOMLSyntaxError) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        var current = 0
        var currentPath: [String] = []
        while true {
            skipSpaces()
            guard let byte = peek() else { return }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
                try skipEndOfLine(after: "")
            case UInt8(ascii: "["):
                (current, currentPath) = try parseHeader()
                try skipEndOfLine(after: "a table header")
            default:
                try parseKeyValue(in: current, path: currentPath)
                try skipEndOfLine(after: "a value")
            }
        }
    }

    /// Parses `[a.b]` or `[[a.b]]`; returns the table that following keys go into, and its path.
    private mutating func parseHeader() throws(TOMLSyntaxError) -> (Int, [String]) {
        let start = index
        let isArray = peek(at: 1) == UInt8(ascii: "[")
        index += isArray ? 2 : 1
        skipSpaces()
        let path = try parseKey(maxParts: Self.maxDepth)
        skipSpaces()
        let close = isArray ? "]]" : "]"
        guard startsWith(close) else {
            throw error(at: index, "expected `\(close)` to close the table header, found \(describe(at: index))")
        }
        index += close.utf8.count
        let headerLine = line(at: start)
        let rendered = isArray ? "[[\(ConfigKeyPath.render(path))]]" : "[\(ConfigKeyPath.render(path))]"

        var id = 0
        for (depth, segment) in path.dropLast().enumerated() {
            switch tables[id].entries[segment] {
            case nil:
                id = newTable(.implicit, in: id, key: segment)
            case .table(let sub):
                id = sub
            case .tableArray(let array):
                id = tableArrays[array][tableArrays[array].count - 1]
            case .value(let node):
                let parent = Array(path.prefix(depth + 1))
                throw error(at: start, "\(rendered) cannot be defined: `\(ConfigKeyPath.render(parent))` is already \(node.typeDescription)\(firstLine(parent))")
            }
        }
        let last = path[path.count - 1]
        let existing = tables[id].entries[last]
        if isArray {
            switch existing {
            case nil:
                let table = appendTable(.explicit)
                tableArrays.append([table])
                tables[id].entries[last] = .tableArray(tableArrays.count - 1)
                record(path, line: headerLine)
                return (table, path)
            case .tableArray(let array):
                let table = appendTable(.explicit)
                tableArrays[array].append(table)
                return (table, path)
            case .table:
                throw error(at: start, "\(rendered) cannot be defined: `\(ConfigKeyPath.render(path))` is already a table\(firstLine(path))")
            case .value(let node):
                let what = node.typeDescription == "an array" ? "an array value (an array of tables needs `[[…]]` headers only)" : node.typeDescription
                throw error(at: start, "\(rendered) cannot be defined: `\(ConfigKeyPath.render(path))` is already \(what)\(firstLine(path))")
            }
        }
        switch existing {
        case nil:
            let table = newTable(.explicit, in: id, key: last)
            record(path, line: headerLine)
            return (table, path)
        case .table(let table):
            switch tables[table].kind {
            case .implicit:
                tables[table].kind = .explicit
                return (table, path)
            case .explicit:
                throw error(at: start, "table \(rendered) is defined twice\(firstLine(path, prefix: "first on"))")
            case .dotted:
                throw error(at: start, "table \(rendered) was already defined with dotted keys\(firstLine(path))")
            }
        case .tableArray:
            throw error(at: start, "\(rendered) cannot be defined: `\(ConfigKeyPath.render(path))` is already an array of tables\(firstLine(path))")
        case .value(let node):
            throw error(at: start, "\(rendered) cannot be defined: `\(ConfigKeyPath.render(path))` is already \(node.typeDescription)\(firstLine(path))")
        }
    }

    /// Parses `key = value` and stores it in table `table`, whose path is `path`.
    mutating func parseKeyValue(in table: Int, path: [String]) throws(TOMLSyntaxError) {
        let start = index
        let key = try parseKey(maxParts: Self.maxDepth - path.count)
        skipSpaces()
        guard peek() == UInt8(ascii: "=") else {
            throw error(at: index, "expected `=` after the key `\(ConfigKeyPath.render(key))`, found \(describe(at: index))")
        }
        index += 1
        skipSpaces()
        let fullPath = path + key
        let keyLine = line(at: start)
        try checkInsertable(key, in: table, fullPath: fullPath, at: start)
        record(fullPath, line: keyLine)
        let value = try parseValue(depth: fullPath.count, path: fullPath)
        try insert(value, key: key, in: table, fullPath: fullPath, at: start)
    }

    /// Throws if `key` cannot take a value in `table` (duplicate, or into a table dotted keys may not extend).
    /// Checked before the value is parsed, so the error points at the key, not past a long value.
    private func checkInsertable(_ key: [String], in table: Int, fullPath: [String], at position: Int) throws(TOMLSyntaxError) {
        var id = table
        let base = fullPath.count - key.count
        for (offset, segment) in key.enumerated() {
            let here = Array(fullPath.prefix(base + offset + 1))
            let isLast = offset == key.count - 1
            guard let slot = tables[id].entries[segment] else { return }
            if isLast {
                throw error(at: position, "duplicate key `\(ConfigKeyPath.render(fullPath))`\(firstLine(here, prefix: "first on"))")
            }
            switch slot {
            case .table(let sub):
                guard tables[sub].kind == .dotted else {
                    throw error(at: position, "`\(ConfigKeyPath.render(fullPath))`: dotted keys cannot add to table `\(ConfigKeyPath.render(here))`, which is defined by a table header\(firstLine(here))")
                }
                id = sub
            case .tableArray:
                throw error(at: position, "`\(ConfigKeyPath.render(fullPath))`: dotted keys cannot add to the array of tables `\(ConfigKeyPath.render(here))`")
            case .value(let node):
                let what = node.tableValue != nil ? "an inline table (inline tables cannot be extended)" : node.typeDescription
                throw error(at: position, "`\(ConfigKeyPath.render(fullPath))` cannot be defined: `\(ConfigKeyPath.render(here))` is already \(what)\(firstLine(here))")
            }
        }
    }

    /// Stores `value` under the dotted `key` in `table`, creating dotted tables on the way.
    mutating func insert(_ value: TOMLNode, key: [String], in table: Int, fullPath: [String], at position: Int) throws(TOMLSyntaxError) {
        try checkInsertable(key, in: table, fullPath: fullPath, at: position)
        var id = table
        for segment in key.dropLast() {
            if case .table(let sub)? = tables[id].entries[segment] {
                id = sub
            } else {
                id = newTable(.dotted, in: id, key: segment)
            }
        }
        tables[id].entries[key[key.count - 1]] = .value(value)
    }

    // MARK: - Tables

    /// Adds an empty table to the arena and returns its index.
    mutating func appendTable(_ kind: TableKind) -> Int {
        tables.append(Table(kind: kind))
        return tables.count - 1
    }

    /// Adds an empty table under `key` in table `parent` and returns its index.
    private mutating func newTable(_ kind: TableKind, in parent: Int, key: String) -> Int {
        let table = appendTable(kind)
        tables[parent].entries[key] = .table(table)
        return table
    }

    /// The finished tree of table `id`.
    func materialize(table id: Int) -> [String: TOMLNode] {
        var result: [String: TOMLNode] = [:]
        result.reserveCapacity(tables[id].entries.count)
        for (key, slot) in tables[id].entries {
            switch slot {
            case .value(let node):
                result[key] = node
            case .table(let sub):
                result[key] = .table(materialize(table: sub))
            case .tableArray(let array):
                result[key] = .array(tableArrays[array].map { .table(materialize(table: $0)) })
            }
        }
        return result
    }

    // MARK: - Keys

    /// Parses `a.b."c d".'e'` into its parts; at most `maxParts` of them.
    mutating func parseKey(maxParts: Int) throws(TOMLSyntaxError) -> [String] {
        let start = index
        var parts: [String] = []
        while true {
            skipSpaces()
            guard let byte = peek() else {
                throw error(at: index, "expected a key, found the end of the file")
            }
            if byte == UInt8(ascii: "\"") {
                if startsWith("\"\"\"") {
                    throw error(at: index, "a multi-line string cannot be a key")
                }
                parts.append(try parseBasicString())
            } else if byte == UInt8(ascii: "'") {
                if startsWith("'''") {
                    throw error(at: index, "a multi-line string cannot be a key")
                }
                parts.append(try parseLiteralString())
            } else if Self.isBareKeyByte(byte) {
                let keyStart = index
                while let next = peek(), Self.isBareKeyByte(next) { index += 1 }
                parts.append(String(decoding: bytes[keyStart..<index], as: UTF8.self))
            } else {
                let what = parts.isEmpty ? "expected a key" : "expected a key after `.`"
                throw error(at: index, "\(what), found \(describe(at: index)) (bare keys use A-Z a-z 0-9 _ -; quote anything else)")
            }
            if parts.count > maxParts {
                throw error(at: start, "the key is nested too deeply (more than \(Self.maxDepth) levels)")
            }
            skipSpaces()
            guard peek() == UInt8(ascii: ".") else { return parts }
            index += 1
        }
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2D
    }

    /// Records `path` and its parents (the first line wins).
    mutating func record(_ path: [String], line: Int) {
        guard !path.isEmpty else { return }
        var rendered = ""
        for segment in path {
            rendered = ConfigKeyPath.join(rendered, segment)
            if lines[rendered] == nil { lines[rendered] = line }
        }
    }

    /// ` (line N)` for a path already seen, or nothing.
    private func firstLine(_ path: [String], prefix: String = "") -> String {
        guard let line = lines[ConfigKeyPath.render(path)] else { return "" }
        return prefix.isEmpty ? " (line \(line))" : " (\(prefix) line \(line))"
    }

    // MARK: - Whitespace, comments, line ends

    mutating func skipSpaces() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    /// Skips spaces, an optional comment and the line end (or the end of the file).
    private mutating func skipEndOfLine(after what: String) throws(TOMLSyntaxError) {
        skipSpaces()
        if peek() == UInt8(ascii: "#") { try skipComment() }
        guard let byte = peek() else { return }
        if byte == UInt8(ascii: "\n") {
            index += 1
        } else if byte == UInt8(ascii: "\r"), peek(at: 1) == UInt8(ascii: "\n") {
            index += 2
        } else if byte == UInt8(ascii: "\r") {
            throw error(at: index, "a carriage return must be followed by a newline")
        } else {
            let context = what.isEmpty ? "" : " after \(what)"
            throw error(at: index, "expected the end of the line\(context), found \(describe(at: index))")
        }
    }

    /// Skips spaces, tabs, newlines and comments (inside arrays).
    mutating func skipWhitespaceAndComments() throws(TOMLSyntaxError) {
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                index += 1
            case UInt8(ascii: "\r"):
                guard peek(at: 1) == UInt8(ascii: "\n") else {
                    throw error(at: index, "a carriage return must be followed by a newline")
                }
                index += 2
            case UInt8(ascii: "#"):
                try skipComment()
            default:
                return
            }
        }
    }

    /// Skips from `#` to just before the line end; control characters other than tab are errors.
    private mutating func skipComment() throws(TOMLSyntaxError) {
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r"), peek(at: 1) == UInt8(ascii: "\n") { return }
            if Self.isForbiddenControl(byte) {
                throw error(at: index, "control character \(Self.unicodeName(byte)) is not allowed in a comment")
            }
            index += 1
        }
    }

    /// Control characters TOML forbids outside escapes: U+0000–U+001F except tab, and U+007F.
    static func isForbiddenControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    static func unicodeName(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    // MARK: - Positions and errors

    func peek(at offset: Int = 0) -> UInt8? {
        let position = index + offset
        return position < bytes.count ? bytes[position] : nil
    }

    func startsWith(_ text: String) -> Bool {
        var position = index
        for byte in text.utf8 {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
        }
        return true
    }

    /// 1-based line of byte offset `position`.
    func line(at position: Int) -> Int {
        var low = 0
        var high = newlines.count
        while low < high {
            let middle = (low + high) / 2
            if newlines[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low + 1
    }

    /// An error at byte offset `position`, with its line and column (in Unicode scalars).
    func error(at position: Int, _ message: String) -> TOMLSyntaxError {
        let position = min(max(position, 0), bytes.count)
        let line = line(at: position)
        let lineStart = line == 1 ? 0 : newlines[line - 2] + 1
        var column = 1
        if lineStart < position {
            for byte in bytes[lineStart..<position] where byte & 0xC0 != 0x80 { column += 1 }
        }
        return TOMLSyntaxError(line: line, column: column, message: message)
    }

    /// "`x`", "the end of the line" or "the end of the file", for "found …" messages.
    func describe(at position: Int) -> String {
        guard position < bytes.count else { return "the end of the file" }
        let byte = bytes[position]
        if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { return "the end of the line" }
        if Self.isForbiddenControl(byte) { return "control character \(Self.unicodeName(byte))" }
        var end = position + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return "`" + String(decoding: bytes[position..<end], as: UTF8.self) + "`"
    }
}
