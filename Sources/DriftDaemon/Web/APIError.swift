import Foundation
import HTTPTypes
import Hummingbird

/// A refusal of the visitor API, answered as `{"error": {"code", "message", "details"}}`.
///
/// Every failure a client can cause maps to one of these (see ``APIErrorMiddleware``);
/// anything else becomes `internal` with a generic message, and the detail stays in the log.
public struct APIError: Error, Sendable, Equatable, HTTPResponseError {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var details: JSONValue?
    /// Extra response headers (`Retry-After`).
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, code: String, _ message: String, details: JSONValue? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
    }

    public static func badRequest(_ message: String, details: JSONValue? = nil) -> APIError {
        APIError(.badRequest, code: "bad_request", message, details: details)
    }
    public static let unauthorized = APIError(.unauthorized, code: "unauthorized",
                                              "send the device token from POST /api/v1/visitors as \"Authorization: Bearer <token>\"")
    public static func forbidden(_ message: String) -> APIError { APIError(.forbidden, code: "forbidden", message) }
    public static func notFound(_ message: String = "no such bottle here") -> APIError { APIError(.notFound, code: "not_found", message) }
    public static func conflict(_ message: String) -> APIError { APIError(.conflict, code: "conflict", message) }
    public static func invalid(field: String, problem: String) -> APIError {
        APIError(.unprocessableContent, code: "invalid", "\(field): \(problem)", details: .object(["field": .string(field), "problem": .string(problem)]))
    }
    public static func tooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, code: "payload_too_large", "the body is larger than this route accepts (\(Self.bytes(limit)))",
                 details: .object(["limitBytes": .number(Double(limit))]))
    }
    public static func unsupportedMediaType(_ message: String) -> APIError {
        APIError(.unsupportedMediaType, code: "unsupported_media_type", message)
    }
    public static func rateLimited(_ what: String, retryAfter: TimeInterval) -> APIError {
        let seconds = max(1, Int(retryAfter.rounded(.up)))
        var error = APIError(.tooManyRequests, code: "rate_limited", "too many \(what); try again in \(seconds) s",
                             details: .object(["retryAfterSeconds": .number(Double(seconds))]))
        error.headers[.retryAfter] = "\(seconds)"
        return error
    }
    /// The box is too busy hashing other passwords to take this one now (the hashing queue is full).
    public static func busy(retryAfter: TimeInterval) -> APIError {
        let seconds = max(1, Int(retryAfter.rounded(.up)))
        var error = APIError(.serviceUnavailable, code: "busy", "the box is checking other passwords; try again in \(seconds) s",
                             details: .object(["retryAfterSeconds": .number(Double(seconds))]))
        error.headers[.retryAfter] = "\(seconds)"
        return error
    }
    /// A WebSocket route asked for without a WebSocket upgrade.
    public static let upgradeRequired: APIError = {
        var error = APIError(.upgradeRequired, code: "upgrade_required",
                             "this is a WebSocket route: connect with a WebSocket (Upgrade: websocket, version 13)")
        error.headers[.upgrade] = "websocket"
        error.headers[.secWebSocketVersion] = "13"
        return error
    }()
    public static let internalError = APIError(.internalServerError, code: "internal", "the box could not do that; it has been logged")

    static func bytes(_ count: Int) -> String {
        count >= 1024 * 1024 ? "\(count / (1024 * 1024)) MiB" : "\(count / 1024) KiB"
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: responseHeaders, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body())))
    }

    /// The answer's headers: JSON, not stored, plus ``headers``.
    var responseHeaders: HTTPFields {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.cacheControl] = "no-store"
        return fields
    }

    /// The answer's body: `{"error": {"code", "message", "details"}}`.
    func body() -> [UInt8] {
        var inner: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let details { inner["details"] = details }
        return JSONValue.object(["error": .object(inner)]).encoded()
    }
}

/// A small JSON tree for error details and hand-built answers.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    /// JSON text inserted as it is (an encoded view).
    case fragment(String)

    /// Compact JSON text with sorted keys.
    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Compact JSON bytes with sorted keys.
    func encoded() -> [UInt8] {
        Array(text.utf8)
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value):
            if !value.isFinite { out += "null" }
            else if value.rounded() == value, abs(value) < 1e15 { out += String(Int64(value)) }
            else { out += "\(value)" }
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let values):
            out += "{"
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                values[key]!.write(to: &out)
            }
            out += "}"
        case .fragment(let text): out += text
        }
    }

    private static func writeString(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
