import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client for tests that talk to a `driftd run` process on loopback
/// (one request per connection, `Connection: close`, the whole answer read). Blocking
/// work runs on a thread of its own (``runBlocking(_:)``).
public struct LoopbackHTTP: Sendable {
    public struct Reply: Sendable, CustomStringConvertible {
        public var status: Int
        public var body: String

        /// The body as a JSON object (empty when it is not one).
        public var object: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        }

        public var description: String { "\(status) \(body.prefix(600))" }
    }

    public let port: Int

    public init(port: Int) {
        self.port = port
    }

    /// A free port on loopback for a server the test starts (``LoopbackPorts``: below the
    /// kernel's ephemeral range, never handed out twice in one test process).
    public static func freePort() throws -> Int {
        try LoopbackPorts.take()
    }

    /// Sends one request; `json` is encoded as the body.
    public func send(_ method: String, _ path: String, token: String? = nil, json: [String: Any]? = nil,
                     timeout: Duration = .seconds(20)) async throws -> Reply {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        if json != nil { head += "Content-Type: application/json\r\n" }
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        let request = Array((head + "\r\n").utf8) + Array(body)
        let port = self.port
        let milliseconds = Int32(timeout.components.seconds * 1_000)
        let raw = try await runBlocking { () throws -> [UInt8] in
            let socket = try TCPSocket.connect(host: "127.0.0.1", port: port, timeoutMilliseconds: milliseconds)
            defer { try? socket.close() }
            try socket.writeAll(request, timeoutMilliseconds: milliseconds)
            var answer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                guard try socket.poll(events: Int16(POLLIN), timeoutMilliseconds: 500) != 0 else { continue }
                let count = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) }
                guard let count else { continue }
                if count == 0 { return answer }
                answer += chunk[..<count]
            }
            throw SystemError(operation: "read", errno: ETIMEDOUT, subject: "HTTP answer from 127.0.0.1:\(port)")
        }
        let text = String(decoding: raw, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return Reply(status: 0, body: text) }
        let statusLine = text[..<split.lowerBound].split(separator: "\r\n").first ?? ""
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        var payload = String(text[split.upperBound...])
        if text[..<split.lowerBound].lowercased().contains("transfer-encoding: chunked") { payload = Self.unchunk(payload) }
        return Reply(status: status, body: payload)
    }

    /// Joins a chunked body's chunks.
    static func unchunk(_ body: String) -> String {
        var bytes = Array(body.utf8)[...]
        var out: [UInt8] = []
        while let lineEnd = bytes.firstIndex(of: 0x0D), let size = Int(String(decoding: bytes[bytes.startIndex..<lineEnd], as: UTF8.self)
            .split(separator: ";").first ?? "", radix: 16), size > 0 {
            let start = lineEnd + 2
            guard start + size <= bytes.endIndex else { break }
            out += bytes[start..<start + size]
            bytes = bytes[min(bytes.endIndex, start + size + 2)...]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A new visitor's device token (`POST /api/v1/visitors`).
    public func newVisitor() async throws -> String {
        let reply = try await send("POST", "/api/v1/visitors")
        guard reply.status == 201, let token = reply.object["token"] as? String else {
            throw SystemError(operation: "register visitor", errno: EPROTO, subject: reply.description)
        }
        return token
    }
}
