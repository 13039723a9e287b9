import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix

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

/// A real HTTP/1.1 client over loopback, on SwiftNIO's own HTTP codec: one connection per
/// request (`Connection: close`), so a refused upload cannot poison the next request. It reads
/// the answer even when the server stopped reading the body (a 413 before the upload ends), and
/// gives up after 60 s. Written on NIO rather than Hummingbird's test client, whose HTTP client
/// brings a TLS stack (a second BoringSSL, HTTP/2) that took minutes of every clean build.
struct APIClient: Sendable {
    let port: Int

    struct NoAnswer: Error, CustomStringConvertible {
        var why: String
        var description: String { "no HTTP answer: \(why)" }
    }

    func send(_ method: HTTPRequest.Method, _ path: String, token: String? = nil, body: [UInt8]? = nil,
              contentType: String? = nil, headers extra: HTTPFields = [:]) async throws -> HTTPReply {
        var fields = extra
        if let token { fields[.authorization] = "Bearer \(token)" }
        if let contentType { fields[.contentType] = contentType }
        var head = HTTPRequestHead(version: .http1_1, method: NIOHTTP1.HTTPMethod(rawValue: method.rawValue), uri: path)
        head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
        for field in fields { head.headers.add(name: field.name.rawName, value: field.value) }
        if let body, fields[.contentLength] == nil { head.headers.add(name: "Content-Length", value: "\(body.count)") }
        head.headers.add(name: "Connection", value: "close")

        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        let raw = channel.channel
        let timeout = raw.eventLoop.scheduleTask(in: .seconds(60)) { raw.close(promise: nil) }
        defer { timeout.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            var writeFailure: (any Error)?
            do {
                try await outbound.write(.head(head))
                if let body { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                try await outbound.write(.end(nil))
            } catch {
                writeFailure = error  // the server may have answered already: read on
            }
            var answer: HTTPResponseHead?
            var bytes: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let head) where head.status.code < 200:
                    continue  // 1xx: the real answer follows
                case .head(let head):
                    answer = head
                case .body(let chunk):
                    bytes.append(contentsOf: chunk.readableBytesView)
                case .end:
                    guard let answer else { throw NoAnswer(why: "an end without a head") }
                    var headers = HTTPFields()
                    for (name, value) in answer.headers {
                        if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
                    }
                    return HTTPReply(status: HTTPResponse.Status(code: Int(answer.status.code), reasonPhrase: answer.status.reasonPhrase),
                                     headers: headers, body: bytes)
                }
            }
            throw NoAnswer(why: writeFailure.map { "closed while sending (\($0))" } ?? "closed before the answer ended")
        }
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
