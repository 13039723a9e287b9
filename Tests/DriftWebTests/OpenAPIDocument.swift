import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

/// The contract, `api/openapi.json` in the repository, read relative to this file.
struct OpenAPIDocument: Sendable {
    let root: JSON

    /// The repository root (Tests/DriftWebTests/OpenAPIDocument.swift → ../..).
    static let repositoryRoot: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static let path = repositoryRoot + "/api/openapi.json"

    static func load() throws -> OpenAPIDocument {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return OpenAPIDocument(root: try #require(JSON.parse(Array(data)), "api/openapi.json is not JSON"))
    }

    static let methods = ["get", "put", "post", "delete", "patch", "head", "options"]

    /// Every operation as "METHOD /path/{param}".
    var operations: Set<String> {
        var found: Set<String> = []
        for (path, item) in root["paths"].object ?? [:] {
            for method in Self.methods where item[method].exists {
                found.insert("\(method.uppercased()) \(path)")
            }
        }
        return found
    }

    func operation(_ method: HTTPRequest.Method, _ path: String) -> JSON {
        root["paths"][path][method.rawValue.lowercased()]
    }

    /// A schema with `$ref` resolved.
    func resolve(_ schema: JSON) -> JSON {
        if let ref = schema["$ref"].string, ref.hasPrefix("#/components/schemas/") {
            return root["components"]["schemas"][String(ref.dropFirst("#/components/schemas/".count))]
        }
        return schema
    }

    /// The documented response for `status` (nil when the operation does not list it).
    func response(_ method: HTTPRequest.Method, _ path: String, status: Int) -> JSON? {
        let response = operation(method, path)["responses"]["\(status)"]
        return response.exists ? response : nil
    }

    /// Checks `reply` against the document: the status is listed, the content type is
    /// one documented for it, and a JSON body has the schema's required fields and no
    /// field the schema does not describe.
    func expect(_ reply: HTTPReply, _ method: HTTPRequest.Method, _ path: String, status: Int,
                sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.code == status, "\(method) \(path): \(reply)", sourceLocation: sourceLocation)
        guard let documented = response(method, path, status: reply.code) else {
            Issue.record("\(method) \(path) answered \(reply.code), which api/openapi.json does not list", sourceLocation: sourceLocation)
            return
        }
        let content = documented["content"].object ?? [:]
        if content.isEmpty {
            #expect(reply.body.isEmpty, "\(method) \(path) \(status) documents no body: \(reply)", sourceLocation: sourceLocation)
            return
        }
        let type = reply.contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        #expect(content.keys.contains(type), "\(method) \(path): Content-Type \(reply.contentType) not in \(content.keys.sorted())",
                sourceLocation: sourceLocation)
        guard type == "application/json" else { return }
        let schema = resolve(content[type]?["schema"] ?? .missing)
        checkObject(reply.json, schema: schema, at: "\(method) \(path)", sourceLocation: sourceLocation)
    }

    /// Required fields present, no undocumented fields (one level, plus nested `$ref` objects one deeper).
    func checkObject(_ value: JSON, schema: JSON, at place: String, depth: Int = 0, sourceLocation: SourceLocation) {
        guard let object = value.object else {
            if schema["type"].string == "object" { Issue.record("\(place): expected an object, got \(value)", sourceLocation: sourceLocation) }
            return
        }
        for field in schema["required"].array?.compactMap(\.string) ?? [] {
            #expect(object[field] != nil, "\(place): required field \(field) missing in \(value)", sourceLocation: sourceLocation)
        }
        guard let properties = schema["properties"].object, schema["additionalProperties"].bool != true else { return }
        for key in object.keys {
            #expect(properties[key] != nil, "\(place): field \(key) is not in the documented schema", sourceLocation: sourceLocation)
        }
        guard depth < 2 else { return }
        for (key, field) in object {
            guard let property = properties[key] else { continue }
            let resolved = resolve(property)
            if resolved["properties"].exists {
                checkObject(field, schema: resolved, at: "\(place).\(key)", depth: depth + 1, sourceLocation: sourceLocation)
            } else if let items = resolved["items"].exists ? resolve(resolved["items"]) : nil, items["properties"].exists,
                      let elements = field.array {
                for (index, element) in elements.enumerated() {
                    checkObject(element, schema: items, at: "\(place).\(key)[\(index)]", depth: depth + 1, sourceLocation: sourceLocation)
                }
            }
        }
    }
}
