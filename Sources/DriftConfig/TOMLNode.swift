import TOMLKit

/// A parsed TOML value as a plain Sendable tree.
///
/// TOMLKit's types are reference wrappers around toml++ nodes and are not
/// Sendable; the loader converts a parsed document into this tree at once and
/// merges, validates and re-serialises only this tree.
enum TOMLNode: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case float(Double)
    case bool(Bool)
    /// A date, time or date-time, kept as its TOML text (driftd has no such keys).
    case dateTime(String)
    case array([TOMLNode])
    case table([String: TOMLNode])

    /// "a string", "an integer", … — for "expected X, found Y" messages.
    var typeDescription: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a floating-point number"
        case .bool: "a boolean"
        case .dateTime: "a date or time"
        case .array: "an array"
        case .table: "a table"
        }
    }

    var tableValue: [String: TOMLNode]? {
        if case .table(let entries) = self { return entries }
        return nil
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}

extension TOMLNode {
    /// Converts a TOMLKit table (the parser's output) into a tree.
    static func tree(from table: TOMLTable) -> [String: TOMLNode] {
        var entries: [String: TOMLNode] = [:]
        for (key, value) in table {
            entries[key] = node(from: value)
        }
        return entries
    }

    private static func node(from value: any TOMLValueConvertible) -> TOMLNode {
        switch value.type {
        case .table:
            return .table(value.table.map(tree(from:)) ?? [:])
        case .array:
            guard let array = value.array else { return .array([]) }
            var elements: [TOMLNode] = []
            for element in array {
                elements.append(node(from: element))
            }
            return .array(elements)
        case .string:
            return .string(value.string ?? "")
        case .int:
            return .integer(value.int ?? 0)
        case .double:
            return .float(value.double ?? 0)
        case .bool:
            return .bool(value.bool ?? false)
        case .date:
            return .dateTime(value.date?.debugDescription ?? "")
        case .time:
            return .dateTime(value.time?.debugDescription ?? "")
        case .dateTime:
            return .dateTime(value.dateTime?.debugDescription ?? "")
        }
    }

    /// Overlays `overlay` on `base` table by table: keys in `overlay` win; tables merge recursively;
    /// arrays and scalars are replaced whole.
    static func merge(base: [String: TOMLNode], overlay: [String: TOMLNode]) -> [String: TOMLNode] {
        var result = base
        for (key, value) in overlay {
            if case .table(let overlayTable) = value, case .table(let baseTable)? = result[key] {
                result[key] = .table(merge(base: baseTable, overlay: overlayTable))
            } else {
                result[key] = value
            }
        }
        return result
    }

    /// Every key path in the tree (tables and their keys, not array elements), rendered.
    static func keyPaths(of table: [String: TOMLNode], prefix: String = "") -> [String] {
        var paths: [String] = []
        for (key, value) in table {
            let path = ConfigKeyPath.join(prefix, key)
            paths.append(path)
            if case .table(let sub) = value {
                paths.append(contentsOf: keyPaths(of: sub, prefix: path))
            }
        }
        return paths
    }
}
