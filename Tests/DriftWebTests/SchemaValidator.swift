import Foundation

/// Checks a JSON value against a schema of `api/openapi.json`, strictly: types (`type`, also
/// as a list), `enum` and `const`, `required`, objects closed to the fields their schema
/// describes (unless `additionalProperties` says otherwise), `items`, `$ref`, `allOf` (merged),
/// `oneOf` (by its `discriminator` when it has one, else exactly one branch), `anyOf`, and
/// `date-time` strings. Enough of JSON Schema for the API's documents; anything it does not
/// know it does not check.
struct SchemaValidator {
    let document: OpenAPIDocument

    /// The named component schema.
    func schema(_ name: String) -> JSON {
        document.root["components"]["schemas"][name]
    }

    /// Every way `value` breaks `schema` (empty: it conforms).
    func problems(_ value: JSON, against schema: JSON, at path: String = "$") -> [String] {
        let schema = resolved(schema)
        if let branches = schema["allOf"].array {
            return problems(value, against: merged(branches.map(resolved) + [schema.removing("allOf")]), at: path)
        }
        if let branches = schema["oneOf"].array {
            if let property = schema["discriminator"]["propertyName"].string, let tag = value[property].string {
                guard let target = schema["discriminator"]["mapping"][tag].string else {
                    return ["\(path): \(property) \"\(tag)\" is none of the documented kinds"]
                }
                return problems(value, against: .object(["$ref": .string(target)]), at: path)
            }
            let passing = branches.filter { problems(value, against: $0, at: path).isEmpty }.count
            if passing != 1 { return ["\(path): matches \(passing) of the \(branches.count) oneOf branches: \(value)"] }
            return []
        }
        if let branches = schema["anyOf"].array {
            return branches.contains { problems(value, against: $0, at: path).isEmpty } ? [] : ["\(path): matches no anyOf branch: \(value)"]
        }
        var found: [String] = []
        if let types = schema["type"].string.map({ [$0] }) ?? schema["type"].array?.compactMap(\.string), !types.contains(where: { Self.matches(value, $0) }) {
            return ["\(path): expected \(types.joined(separator: " or ")), found \(value)"]
        }
        if let allowed = schema["enum"].array, !allowed.contains(value) {
            found.append("\(path): \(value) is not one of \(allowed)")
        }
        if schema["const"] != .missing, schema["const"] != value {
            found.append("\(path): expected \(schema["const"]), found \(value)")
        }
        if schema["format"].string == "date-time", let text = value.string, Self.instant(text) == nil {
            found.append("\(path): \"\(text)\" is not a date-time")
        }
        if let object = value.object {
            for field in schema["required"].array?.compactMap(\.string) ?? [] where object[field] == nil {
                found.append("\(path): required field \(field) missing")
            }
            let properties = schema["properties"].object ?? [:]
            for (key, field) in object.sorted(by: { $0.key < $1.key }) {
                if let property = properties[key] {
                    found += problems(field, against: property, at: "\(path).\(key)")
                } else if schema["additionalProperties"].object != nil {
                    found += problems(field, against: schema["additionalProperties"], at: "\(path).\(key)")
                } else if schema["additionalProperties"].bool != true, !properties.isEmpty || schema["additionalProperties"].bool == false {
                    found.append("\(path): field \(key) is not in the documented schema")
                }
            }
        }
        if let elements = value.array, schema["items"].exists {
            for (index, element) in elements.enumerated() {
                found += problems(element, against: schema["items"], at: "\(path)[\(index)]")
            }
        }
        return found
    }

    private func resolved(_ schema: JSON) -> JSON {
        var schema = schema
        while let ref = schema["$ref"].string {
            let prefix = "#/components/schemas/"
            guard ref.hasPrefix(prefix) else { break }
            schema = self.schema(String(ref.dropFirst(prefix.count)))
        }
        return schema
    }

    /// One schema from `allOf` branches: their properties and required fields together.
    private func merged(_ branches: [JSON]) -> JSON {
        var result: [String: JSON] = [:]
        var properties: [String: JSON] = [:]
        var required: [JSON] = []
        for branch in branches {
            for (key, value) in branch.object ?? [:] where key != "properties" && key != "required" { result[key] = value }
            properties.merge(branch["properties"].object ?? [:]) { first, _ in first }
            required += branch["required"].array ?? []
        }
        if !properties.isEmpty { result["properties"] = .object(properties) }
        if !required.isEmpty { result["required"] = .array(required) }
        return .object(result)
    }

    static func matches(_ value: JSON, _ type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object), ("number", .number): true
        case ("integer", .number(let number)): number.rounded() == number
        default: false
        }
    }

    static func instant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

extension JSON {
    /// The object without `key`.
    func removing(_ key: String) -> JSON {
        guard var object else { return self }
        object[key] = nil
        return .object(object)
    }
}
