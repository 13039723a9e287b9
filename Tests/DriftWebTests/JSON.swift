import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes

/// A parsed JSON value for assertions: `json["error"]["code"].string`. Missing keys
/// read as ``missing`` (distinct from an explicit `null`).
enum JSON: Sendable, Equatable, Decodable, CustomStringConvertible {
    case missing
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSON].self)) }
    }

    /// Parses `bytes`; `nil` unless they are JSON.
    static func parse(_ bytes: [UInt8]) -> JSON? {
        try? JSONDecoder().decode(JSON.self, from: Data(bytes))
    }

    static func parse(_ text: String) -> JSON? { parse(Array(text.utf8)) }

    subscript(key: String) -> JSON {
        if case .object(let values) = self { return values[key] ?? .missing }
        return .missing
    }

    subscript(index: Int) -> JSON {
        if case .array(let values) = self, values.indices.contains(index) { return values[index] }
        return .missing
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var int: Int? { number.map { Int($0) } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var array: [JSON]? { if case .array(let value) = self { value } else { nil } }
    var object: [String: JSON]? { if case .object(let value) = self { value } else { nil } }
    var isMissing: Bool { self == .missing }
    var isNull: Bool { self == .null }
    /// Present and not null.
    var exists: Bool { self != .missing && self != .null }
    var keys: Set<String> { Set(object?.keys.map { $0 } ?? []) }

    var description: String {
        switch self {
        case .missing: "<missing>"
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .array(let values): "[" + values.map(\.description).joined(separator: ",") + "]"
        case .object(let values): "{" + values.keys.sorted().map { "\"\($0)\":\(values[$0]!)" }.joined(separator: ",") + "}"
        }
    }
}
