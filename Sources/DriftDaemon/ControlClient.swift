import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Sends one request to a daemon's control socket and returns its answer line.
public enum ControlClient {
    /// What went wrong talking to the daemon.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Sends `request` to the socket at `path` and waits up to `timeout` for one line back.
    public static func send(_ request: ControlRequest, to path: String, timeoutMilliseconds: Int32 = 5_000) throws -> Data {
        try send(line: JSONEncoder().encode(request), to: path, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Sends one raw request line (without its newline) and returns the answer line as text
    /// (scripts and tests that send hand-written JSON).
    public static func send(rawLine: String, to path: String, timeoutMilliseconds: Int32 = 5_000) throws -> String {
        String(decoding: try send(line: Data(rawLine.utf8), to: path, timeoutMilliseconds: timeoutMilliseconds), as: UTF8.self)
    }

    static func send(line request: Data, to path: String, timeoutMilliseconds: Int32) throws -> Data {
        let socket = try UnixSocket.make(type: Int32(SOCK_STREAM.rawValue))
        defer { try? socket.close() }
        do {
            try UnixSocket.connect(socket, to: UnixSocketAddress(path))
        } catch {
            throw Failure(description: "cannot reach driftd at \(path): \(error.reason) — is driftd running with this data directory?")
        }
        var line = request
        line.append(UInt8(ascii: "\n"))
        try UnixSocket.sendAll(socket, Array(line))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !received.contains(UInt8(ascii: "\n")) {
            let events = try socket.poll(events: Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds)
            if events == 0 { throw Failure(description: "driftd at \(path) did not answer within \(timeoutMilliseconds) ms") }
            let result: Result<Int?, SystemError> = chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) -> Int? in try socket.read(into: raw) }
            }
            guard let count = try result.get() else { continue }
            if count == 0 { break }
            received.append(contentsOf: chunk[0..<count])
        }
        let answer = received.split(separator: UInt8(ascii: "\n"), maxSplits: 1).first ?? []
        return Data(answer)
    }
}
