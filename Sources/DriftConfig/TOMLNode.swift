/// A parsed TOML value as a plain Sendable tree.
///
/// ``TOMLParser`` produces it; the loader merges, validates and re-serialises
/// (``TOMLWriter``) only this tree.
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
