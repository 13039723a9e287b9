/// Writes a ``TOMLNode`` tree back as TOML text (the effective, merged configuration).
///
/// Tables and keys come out in schema order (the order of `docs/config.md`),
/// anything else sorted by name after them, so the output is stable.
enum TOMLWriter {
    /// Serialises `root`. `order` lists known tables with their keys in the order to write them.
    static func document(
        _ root: [String: TOMLNode], order: [(table: String, keys: [String])], header: [String] = []
    ) -> String {
        var out = ""
        for comment in header {
            out += comment.isEmpty ? "#\n" : "# \(comment)\n"
        }
        let tableOrder = order.map(\.table)
        let keyOrder = Dictionary(order.map { ($0.table, $0.keys) }, uniquingKeysWith: { first, _ in first })

        // Root-level plain values must come before any table header.
        let rootKeys = sortedKeys(root, preferred: tableOrder)
        var wroteRootValue = false
        for key in rootKeys where !isSection(root[key]!) {
            out += "\(ConfigKeyPath.renderSegment(key)) = \(inline(root[key]!))\n"
            wroteRootValue = true
        }
        var first = !wroteRootValue && header.isEmpty
        for key in rootKeys where isSection(root[key]!) {
            writeSection(
                root[key]!, path: [key], keyOrder: keyOrder[key] ?? [], into: &out, first: &first)
        }
        return out
    }

    /// A value written on one line (`"text"`, `42`, `[1, 2]`, `{ a = 1 }`).
    static func inline(_ node: TOMLNode) -> String {
        switch node {
        case .string(let text):
            return quoted(text)
        case .integer(let value):
            return String(value)
        case .float(let value):
            return float(value)
        case .bool(let value):
            return value ? "true" : "false"
        case .dateTime(let text):
            return text
        case .array(let elements):
            return "[" + elements.map(inline).joined(separator: ", ") + "]"
        case .table(let entries):
            if entries.isEmpty { return "{}" }
            let parts = entries.keys.sorted().map { "\(ConfigKeyPath.renderSegment($0)) = \(inline(entries[$0]!))" }
            return "{ " + parts.joined(separator: ", ") + " }"
        }
    }

    /// A TOML basic string literal with the required escapes.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func float(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value > 0 ? "inf" : "-inf" }
        let text = String(value)
        if text.contains(".") || text.contains("e") || text.contains("E") { return text }
        return text + ".0"
    }

    // MARK: - Sections

    /// A table or a non-empty array of tables: written under its own header.
    private static func isSection(_ node: TOMLNode) -> Bool {
        switch node {
        case .table: return true
        case .array(let elements): return !elements.isEmpty && elements.allSatisfy { $0.tableValue != nil }
        default: return false
        }
    }

    private static func writeSection(
        _ node: TOMLNode, path: [String], keyOrder: [String], into out: inout String, first: inout Bool
    ) {
        let header = ConfigKeyPath.render(path)
        switch node {
        case .table(let entries):
            let keys = sortedKeys(entries, preferred: keyOrder)
            let plain = keys.filter { !isSection(entries[$0]!) }
            let nested = keys.filter { isSection(entries[$0]!) }
            // A table with only sub-tables still gets its header when empty, so it survives a round trip.
            if !plain.isEmpty || nested.isEmpty {
                if !first { out += "\n" }
                first = false
                out += "[\(header)]\n"
                for key in plain {
                    out += "\(ConfigKeyPath.renderSegment(key)) = \(inline(entries[key]!))\n"
                }
            }
            for key in nested {
                writeSection(entries[key]!, path: path + [key], keyOrder: [], into: &out, first: &first)
            }
        case .array(let elements):
            for element in elements {
                guard let entries = element.tableValue else { continue }
                if !first { out += "\n" }
                first = false
                out += "[[\(header)]]\n"
                for key in entries.keys.sorted() {
                    out += "\(ConfigKeyPath.renderSegment(key)) = \(inline(entries[key]!))\n"
                }
            }
        default:
            break
        }
    }

    /// Keys in `preferred` order first, the rest sorted.
    private static func sortedKeys(_ entries: [String: TOMLNode], preferred: [String]) -> [String] {
        let known = preferred.filter { entries[$0] != nil }
        let knownSet = Set(known)
        return known + entries.keys.filter { !knownSet.contains($0) }.sorted()
    }
}
