import CDriftSys

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `AF_UNIX` socket calls, through the syscall layer.
///
/// Descriptors returned here are close-on-exec; the caller owns and closes them.
public enum UnixSocket {
    /// A new socket of `type` (`SOCK_STREAM` or `SOCK_DGRAM`), optionally non-blocking.
    public static func make(type: Int32, nonBlocking: Bool = false) throws(SystemError) -> FileDescriptor {
        var flags = type | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { flags |= Int32(SOCK_NONBLOCK.rawValue) }
        let fd = try Syscall.retryingEINTR("socket") { Glibc.socket(AF_UNIX, flags, 0) }
        return FileDescriptor(rawValue: fd)
    }

    /// Binds `socket` to `address`.
    public static func bind(_ socket: FileDescriptor, to address: UnixSocketAddress) throws(SystemError) {
        let result = address.withSockaddr { pointer, length in Glibc.bind(socket.rawValue, pointer, length) }
        if result == -1 { throw SystemError(operation: "bind", errno: Syscall.errno, subject: address.description) }
    }

    /// Connects `socket` to `address`.
    public static func connect(_ socket: FileDescriptor, to address: UnixSocketAddress) throws(SystemError) {
        try Syscall.retryingEINTR("connect", subject: address.description) {
            address.withSockaddr { pointer, length in Glibc.connect(socket.rawValue, pointer, length) }
        }
    }

    /// Marks `socket` as accepting connections.
    public static func listen(_ socket: FileDescriptor, backlog: Int32 = 16) throws(SystemError) {
        try Syscall.retryingEINTR("listen") { Glibc.listen(socket.rawValue, backlog) }
    }

    /// Accepts one connection as a non-blocking descriptor, or `nil` if none is pending.
    public static func accept(_ socket: FileDescriptor) throws(SystemError) -> FileDescriptor? {
        try Syscall.retryingEINTRNonBlocking("accept4") {
            drift_accept_nonblock(socket.rawValue)
        }.map(FileDescriptor.init(rawValue:))
    }

    /// Writes all of `bytes` to a connected stream socket with `MSG_NOSIGNAL` (a peer that went
    /// away is an `EPIPE` error, never a `SIGPIPE`), waiting for room when it is non-blocking.
    public static func sendAll(_ socket: FileDescriptor, _ bytes: [UInt8], timeoutMilliseconds: Int32 = 5_000) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let start = offset
            let result: Result<Int?, SystemError> = bytes.withUnsafeBytes { raw in
                Result { () throws(SystemError) -> Int? in
                    try Syscall.retryingEINTRNonBlocking("send") {
                        Glibc.send(socket.rawValue, raw.baseAddress! + start, raw.count - start, Int32(MSG_NOSIGNAL))
                    }
                }
            }
            if let sent = try result.get() {
                offset += sent
            } else if try socket.poll(events: Int16(POLLOUT), timeoutMilliseconds: timeoutMilliseconds) == 0 {
                throw SystemError(operation: "send", errno: ETIMEDOUT)
            }
        }
    }

    /// Sends one datagram to `address`. A receiver whose queue is full (Linux queues only
    /// `net.unix.max_dgram_qlen` datagrams, 10 by default) is waited for at most `patience`,
    /// then the send fails with `EAGAIN`: a reader that stopped reading must not hold the
    /// caller's thread for ever — a blocked send once held a pool thread through shutdown until
    /// the daemon was killed by its own shutdown timeout.
    public static func send(_ socket: FileDescriptor, _ bytes: [UInt8], to address: UnixSocketAddress,
                            patience: Duration = .seconds(2)) throws(SystemError) {
        let deadline = ContinuousClock.now + patience
        while true {
            let sent = try Syscall.retryingEINTRNonBlocking("sendto", subject: address.description) {
                bytes.withUnsafeBytes { raw in
                    address.withSockaddr { pointer, length in
                        Glibc.sendto(socket.rawValue, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), pointer, length)
                    }
                }
            }
            if sent != nil { return }
            if ContinuousClock.now >= deadline {
                throw SystemError(operation: "sendto", errno: EAGAIN, subject: address.description)
            }
            usleep(10_000)
        }
    }

    /// Receives one datagram of at most `capacity` bytes (blocking unless the socket is non-blocking:
    /// then `nil` when none is queued).
    public static func receive(_ socket: FileDescriptor, capacity: Int = 65_536) throws(SystemError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let result: Result<Int?, SystemError> = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SystemError) -> Int? in
                try Syscall.retryingEINTRNonBlocking("recv") { Glibc.recv(socket.rawValue, raw.baseAddress, raw.count, 0) }
            }
        }
        guard let count = try result.get() else { return nil }
        return Array(buffer.prefix(count))
    }
}
