import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Sends one raw JSON line to a control socket and returns the answer line (blocking: call it
/// through ``runBlocking(_:)``).
public enum ControlRequestLine {
    public static func send(_ line: String, to path: String, timeoutMilliseconds: Int32 = 5_000) throws -> String {
        let socket = try UnixSocket.make(type: Int32(SOCK_STREAM.rawValue))
        defer { try? socket.close() }
        try UnixSocket.connect(socket, to: UnixSocketAddress(path))
        try UnixSocket.sendAll(socket, Array((line + "\n").utf8))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !received.contains(UInt8(ascii: "\n")) {
            guard try socket.poll(events: Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds) != 0 else { break }
            let count = try chunk.withUnsafeMutableBytes { raw in try socket.read(into: raw) } ?? 0
            if count == 0 { break }
            received.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: received, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}
