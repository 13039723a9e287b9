import DriftSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A client of systemd's notification socket (`$NOTIFY_SOCKET`), speaking the
/// datagram protocol of `sd_notify(3)` without linking libsystemd.
///
/// Supports filesystem paths and abstract names (`@name`). Each ``send(_:)``
/// is one datagram with the assignments separated by newlines.
public final class SystemdNotifier: Sendable {
    /// The socket address as given in `NOTIFY_SOCKET`.
    public let address: UnixSocketAddress
    private let socket: FileDescriptor

    /// Creates a notifier for `NOTIFY_SOCKET` in `environment`, or `nil` when it is unset or empty
    /// (not started by systemd).
    public static func fromEnvironment(_ environment: [String: String]) throws(SystemError) -> SystemdNotifier? {
        guard let address = environment["NOTIFY_SOCKET"], !address.isEmpty else { return nil }
        return try SystemdNotifier(address: address)
    }

    /// Opens a datagram socket for sending to `address` (a path, or `@name` for an abstract socket).
    public init(address: String) throws(SystemError) {
        guard address.hasPrefix("/") || address.hasPrefix("@") else {
            throw SystemError(operation: "sd_notify", errno: EAFNOSUPPORT, subject: address)
        }
        self.address = try UnixSocketAddress(address)
        self.socket = try UnixSocket.make(type: Int32(SOCK_DGRAM.rawValue))
    }

    deinit {
        try? socket.close()
    }

    /// Sends `messages` as one datagram.
    public func send(_ messages: [NotifyMessage]) throws(SystemError) {
        guard !messages.isEmpty else { return }
        let payload = Array(messages.map(\.assignment).joined(separator: "\n").utf8)
        try UnixSocket.send(socket, payload, to: address)
    }

    /// Sends one message.
    public func send(_ message: NotifyMessage) throws(SystemError) {
        try send([message])
    }

    /// The watchdog interval systemd expects pings within, from `WATCHDOG_USEC`, if it is meant
    /// for this process (`WATCHDOG_PID` unset or equal to `pid`).
    public static func watchdogInterval(environment: [String: String], pid: Int32 = getpid()) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty {
            guard let ownerPID = Int32(owner), ownerPID == pid else { return nil }
        }
        return .microseconds(Int64(clamping: usec))
    }
}
