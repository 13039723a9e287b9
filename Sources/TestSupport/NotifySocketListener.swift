import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real Unix datagram socket standing in for systemd's notify socket.
///
/// Bind it at a filesystem path or an abstract `@name`, hand its ``address``
/// to the code under test as `NOTIFY_SOCKET`, and read what arrives.
public final class NotifySocketListener: @unchecked Sendable {
    public let address: String
    private let socket: FileDescriptor

    /// Binds a datagram socket at `address` (`/path` or `@name`).
    public init(address: String) throws {
        self.address = address
        socket = try UnixSocket.make(type: Int32(SOCK_DGRAM.rawValue), nonBlocking: true)
        try UnixSocket.bind(socket, to: UnixSocketAddress(address))
    }

    /// A listener with a unique abstract name.
    public static func abstract() throws -> NotifySocketListener {
        try NotifySocketListener(address: "@drift-notify-\(UUID().uuidString.prefix(12))")
    }

    deinit {
        try? socket.close()
        if !address.hasPrefix("@") { unlink(address) }
    }

    /// The next datagram as text, or `nil` if none arrives within `timeout`.
    public func receive(timeout: Duration = .seconds(5)) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let bytes = try UnixSocket.receive(socket) {
                return String(decoding: bytes, as: UTF8.self)
            }
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { return nil }
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            _ = try socket.poll(events: Int16(POLLIN), timeoutMilliseconds: milliseconds)
        }
    }

    /// Datagrams until one contains `assignment` (e.g. `READY=1`); all of them, in order.
    /// Throws if `timeout` passes first.
    public func receive(until assignment: String, timeout: Duration = .seconds(10)) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var received: [String] = []
        while ContinuousClock.now < deadline {
            guard let message = try receive(timeout: deadline - ContinuousClock.now) else { break }
            received.append(message)
            if message.split(separator: "\n").contains(Substring(assignment)) { return received }
        }
        throw NotifyTimeout(assignment: assignment, received: received)
    }

    /// Thrown by ``receive(until:timeout:)``.
    public struct NotifyTimeout: Error, CustomStringConvertible {
        public var assignment: String
        public var received: [String]
        public var description: String { "no \(assignment) within the timeout; received \(received)" }
    }
}
