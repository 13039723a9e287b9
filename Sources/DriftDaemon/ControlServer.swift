import DriftSystem
import Foundation
import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's local control socket: a Unix stream socket, owner-only
/// (`0600`), answering one JSON request per line (``ControlRequest``) with one
/// JSON line. `driftd status` and `driftd ctl …` talk to it.
///
/// A stale socket file left by a crash is replaced; a socket another live
/// daemon answers on is an error (two daemons must not share a data directory).
public struct ControlServer: Service {
    public let path: String
    let commands: ControlCommands
    let logger: Logger
    /// Answers are written here: a client that does not read would hold the writer up to its timeout.
    private let io = BlockingLane(name: "control-io")
    /// Longest request line accepted; longer ones are answered with an error and the connection closed.
    static let maximumRequestBytes = 64 * 1024

    public init(path: String, commands: ControlCommands, logger: Logger) {
        self.path = path
        self.commands = commands
        self.logger = logger
    }

    /// Waits between accept attempts that failed for want of descriptors or memory.
    static let acceptBackoff: ClosedRange<Duration> = .milliseconds(50)...(.seconds(1))

    /// `accept` failures that pass: the process or system is out of descriptors or memory,
    /// or the client gave up before it was accepted.
    static func isTransient(_ error: SystemError) -> Bool {
        [EMFILE, ENFILE, ENOBUFS, ENOMEM, ECONNABORTED, EINTR, EAGAIN, EPROTO, EPERM].contains(error.errno)
    }

    /// Binds the socket now, so start-up fails early and clearly if it cannot.
    public func bind() throws -> BoundControlSocket {
        let address = try UnixSocketAddress(path)
        try Self.removeStaleSocket(at: path, address: address)
        let socket = try UnixSocket.make(type: Int32(SOCK_STREAM.rawValue), nonBlocking: true)
        do {
            let previous = umask(0o177)
            defer { umask(previous) }
            try UnixSocket.bind(socket, to: address)
            try UnixSocket.listen(socket)
        } catch {
            try? socket.close()
            throw error
        }
        return BoundControlSocket(socket: socket, path: path)
    }

    public func run() async throws {
        let bound = try bind()
        logger.info("control socket listening", metadata: ["path": "\(path)"])
        let monitor = ReadinessMonitor(descriptor: bound.socket, label: "drift.control")
        defer {
            monitor.close()
            bound.close()
        }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                var backoff = Self.acceptBackoff.lowerBound
                while true {
                    do {
                        _ = try await monitor.readable()
                        while let connection = try UnixSocket.accept(bound.socket) {
                            backoff = Self.acceptBackoff.lowerBound
                            group.addTask { await serve(connection) }
                        }
                    } catch is CancellationError {
                        break
                    } catch is ReadinessMonitorClosed {
                        break
                    } catch let error as SystemError where Self.isTransient(error) {
                        // Out of descriptors (every one taken by clients of the visitor page) or
                        // memory: the pending connection stays queued; try again shortly, never stop.
                        logger.warning("control socket cannot accept now; retrying", metadata: [
                            "error": "\(error)", "retry": "\(backoff)",
                        ])
                        do { try await Task.sleep(for: backoff) } catch { break }
                        backoff = min(backoff * 2, Self.acceptBackoff.upperBound)
                    } catch {
                        logger.error("control socket failed", metadata: ["error": "\(error)"])
                        break
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            monitor.close()
        }
    }

    /// Reads one line (bounded, with a timeout), answers it, closes.
    func serve(_ connection: FileDescriptor) async {
        let monitor = ReadinessMonitor(descriptor: connection, label: "drift.control.client")
        defer {
            monitor.close()
            try? connection.close()
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        do {
            reading: while true {
                guard try await monitor.readable(timeout: .seconds(5)) else { return }
                while true {
                    let result: Result<Int?, SystemError> = chunk.withUnsafeMutableBytes { raw in
                        Result { () throws(SystemError) -> Int? in try connection.read(into: raw) }
                    }
                    guard let count = try result.get() else { continue reading }
                    if count == 0 { break reading }
                    buffer.append(contentsOf: chunk[0..<count])
                    if buffer.contains(UInt8(ascii: "\n")) { break reading }
                    if buffer.count > Self.maximumRequestBytes {
                        var line = ControlCommands.errorLine(ControlError(code: "too_large", message: "request longer than \(Self.maximumRequestBytes) bytes"))
                        line.append(UInt8(ascii: "\n"))
                        try await io.run { [line] in try UnixSocket.sendAll(connection, Array(line)) }
                        return
                    }
                }
            }
            let requestLine = buffer.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
            var response = await commands.respond(to: Data(requestLine))
            response.append(UInt8(ascii: "\n"))
            try await io.run { [response] in try UnixSocket.sendAll(connection, Array(response)) }
        } catch {
            logger.debug("control connection ended", metadata: ["error": "\(error)"])
        }
    }

    static func removeStaleSocket(at path: String, address: UnixSocketAddress) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SystemError(operation: "bind", errno: EEXIST, subject: "\(path) exists and is not a socket")
        }
        let probe = try UnixSocket.make(type: Int32(SOCK_STREAM.rawValue))
        defer { try? probe.close() }
        do {
            try UnixSocket.connect(probe, to: address)
            throw SystemError(operation: "bind", errno: EADDRINUSE, subject: "\(path): another driftd answers on this control socket")
        } catch let error as SystemError where error.errno == ECONNREFUSED || error.errno == ENOENT {
            unlink(path)
        }
    }
}

/// A bound, listening control socket; ``close()`` closes it and removes the file.
public struct BoundControlSocket: Sendable {
    let socket: FileDescriptor
    public let path: String

    func close() {
        try? socket.close()
        unlink(path)
    }
}
