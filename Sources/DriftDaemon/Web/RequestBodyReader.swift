import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Reads request bodies with a per-route byte limit and decodes JSON with clear errors.
enum RequestBodyReader {
    /// The whole body, at most `limit` bytes (413 beyond; the declared length is checked first).
    static func bytes(_ request: inout Request, limit: Int) async throws -> [UInt8] {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw APIError.tooLarge(limit: limit)
        }
        do {
            let buffer = try await request.collectBody(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError.tooLarge(limit: limit)
        } catch is NIOTooManyBytesError {
            // A body without a declared length (chunked) that grew past the limit.
            throw APIError.tooLarge(limit: limit)
        }
    }

    /// Whether `contentType` names JSON: exactly `application/json` (any case), parameters
    /// such as `; charset=utf-8` allowed.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    /// Decodes a JSON body of type `T`. An empty body decodes as `{}` when `allowEmpty`;
    /// any other body needs `Content-Type: application/json` (415 without it).
    static func json<T: Decodable>(_ type: T.Type, from request: inout Request, limit: Int, allowEmpty: Bool = false) async throws -> T {
        let body = try await bytes(&request, limit: limit)
        if body.isEmpty, allowEmpty {
            return try decode(type, from: Array("{}".utf8))
        }
        guard isJSON(request.headers[.contentType]) else {
            throw APIError.unsupportedMediaType("send JSON with \"Content-Type: application/json\"")
        }
        return try decode(type, from: body)
    }

    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch let error as DecodingError {
            throw APIError.badRequest(describe(error), details: .object(["path": .string(path(of: error))]))
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.badRequest("the body is not valid JSON")
        }
    }

    static func path(of error: DecodingError) -> String {
        let path: [any CodingKey] = switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath
        @unknown default: []
        }
        return path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, _):
            let at = path(of: error)
            return "\(at.isEmpty ? "the body" : at): expected \(typeName(type))"
        case .valueNotFound(let type, _):
            return "\(path(of: error)): expected \(typeName(type)), found null"
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "missing field \(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the body is not valid JSON" }
            return "\(path(of: error)): \(context.debugDescription)"
        @unknown default:
            return "the body could not be read"
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default: String(describing: type).contains("Array") ? "an array" : "an object"
        }
    }
}
