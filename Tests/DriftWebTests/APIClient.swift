import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// One HTTP answer, read whole.
struct HTTPReply: Sendable, CustomStringConvertible {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: [UInt8]

    var code: Int { status.code }
    /// The body as JSON (``JSON/missing`` when it is not JSON).
    var json: JSON { JSON.parse(body) ?? .missing }
    var text: String { String(decoding: body, as: UTF8.self) }
    var contentType: String { headers[.contentType] ?? "" }
    var isJSON: Bool { contentType.lowercased().hasPrefix("application/json") }

    var description: String { "\(status.code) \(contentType) \(text.prefix(600))" }
}

/// A real HTTP/1.1 client over loopback (Hummingbird's test client, one connection per
/// request so a refused upload cannot poison the next request).
struct APIClient: Sendable {
    let port: Int

    func send(_ method: HTTPRequest.Method, _ path: String, token: String? = nil, body: [UInt8]? = nil,
              contentType: String? = nil, headers extra: HTTPFields = [:]) async throws -> HTTPReply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if let contentType { headers[.contentType] = contentType }
        let request = TestClient.Request(path, method: method, authority: "127.0.0.1:\(port)", headers: headers,
                                         body: body.map { ByteBuffer(bytes: $0) })
        let response = try await TestClient.withClient(host: "127.0.0.1", port: port,
                                                       configuration: .init(timeout: .seconds(60))) { client in
            try await client.execute(request)
        }
        return HTTPReply(status: response.status, headers: response.headers,
                         body: response.body.map { Array($0.readableBytesView) } ?? [])
    }

    func get(_ path: String, token: String? = nil) async throws -> HTTPReply {
        try await send(.get, path, token: token)
    }

    func delete(_ path: String, token: String? = nil) async throws -> HTTPReply {
        try await send(.delete, path, token: token)
    }

    /// Sends `json` text with `Content-Type: application/json`.
    func send(_ method: HTTPRequest.Method, _ path: String, token: String? = nil, json: String) async throws -> HTTPReply {
        try await send(method, path, token: token, body: Array(json.utf8), contentType: "application/json")
    }

    func post(_ path: String, token: String? = nil, json: String) async throws -> HTTPReply {
        try await send(.post, path, token: token, json: json)
    }

    func put(_ path: String, token: String? = nil, bytes: [UInt8], contentType: String) async throws -> HTTPReply {
        try await send(.put, path, token: token, body: bytes, contentType: contentType)
    }
}
