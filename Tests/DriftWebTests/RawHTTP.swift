import DriftSystem
import TestSupport
import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 by hand over a loopback socket, for what the test client cannot send: a body
/// with `Transfer-Encoding: chunked` (no declared length).
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends `body` chunked in pieces of `chunkBytes` and reads the answer (its
    /// `Content-Length`, or until the server closes).
    static func chunked(port: Int, _ method: String, _ path: String, token: String?, contentType: String?, body: [UInt8],
                        chunkBytes: Int = 4096) async throws -> HTTPReply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        var request = Array((head + "\r\n").utf8)
        for start in stride(from: 0, to: body.count, by: chunkBytes) {
            let chunk = body[start..<min(start + chunkBytes, body.count)]
            request += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
        }
        request += Array("0\r\n\r\n".utf8)
        let bytes = request
        // Blocking socket calls: on a thread made for them, never the cooperative pool (two threads here).
        return try await runBlocking { try exchange(port: port, bytes) }
    }

    private static func exchange(port: Int, _ request: [UInt8]) throws -> HTTPReply {
        // The server may answer and close before the whole body is sent: no SIGPIPE for that.
        signal(SIGPIPE, SIG_IGN)
        let socket = try TCPSocket.connect(host: "127.0.0.1", port: port)
        defer { try? socket.close() }
        do { try socket.writeAll(request, timeoutMilliseconds: 30_000) } catch {
            // An early answer: read it below.
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let reply = parse(received) { return reply }
            _ = try socket.poll(events: Int16(POLLIN), timeoutMilliseconds: 1_000)
            let count = try buffer.withUnsafeMutableBytes { try socket.read(into: $0) }
            guard let count else { continue }
            if count == 0 { break }
            received += buffer[0..<count]
        }
        if let reply = parse(received, closed: true) { return reply }
        throw Failure(description: "no HTTP answer: \(String(decoding: received.prefix(300), as: UTF8.self))")
    }

    /// A complete answer in `bytes`, if there is one.
    private static func parse(_ bytes: [UInt8], closed: Bool = false) -> HTTPReply? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else { return nil }
        let lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let code = Int(statusParts[1]) else { return nil }
        var headers = HTTPFields()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
            headers.append(HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let body = Array(bytes[(end + 4)...])
        if let length = headers[.contentLength].flatMap(Int.init) {
            guard body.count >= length else { return nil }
            return HTTPReply(status: .init(code: code), headers: headers, body: Array(body.prefix(length)))
        }
        return closed ? HTTPReply(status: .init(code: code), headers: headers, body: body) : nil
    }
}
