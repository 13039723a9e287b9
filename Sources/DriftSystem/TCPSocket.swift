import CDriftSys

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// TCP client and loopback listener calls, through the syscall layer.
///
/// Descriptors returned here are close-on-exec and non-blocking; the caller owns and
/// closes them. Read with ``FileDescriptor/read(into:)`` (`nil` = nothing yet, `0` = closed),
/// write with ``UnixSocket/sendAll(_:_:timeoutMilliseconds:)`` (it works on any stream socket).
public enum TCPSocket {
    /// Connects to `host:port` (a name or numeric address; each resolved address is tried
    /// in turn), waiting at most `timeoutMilliseconds` per address. `source`, a numeric IPv4
    /// address, is the local address to connect from (tests stand in for several phones with
    /// 127.0.0.2, 127.0.0.3 …; every 127/8 address is the loopback's).
    public static func connect(host: String, port: Int, from source: String? = nil,
                               timeoutMilliseconds: Int32 = 5_000) throws(SystemError) -> FileDescriptor {
        let subject = "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw SystemError(operation: "getaddrinfo", errno: EHOSTUNREACH, subject: "\(subject) (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(list) }
        var lastError = SystemError(operation: "connect", errno: EHOSTUNREACH, subject: subject)
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            do throws(SystemError) {
                return try connect(current.pointee, source: source, subject: subject, timeoutMilliseconds: timeoutMilliseconds)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private static func connect(_ address: addrinfo, source: String?, subject: String,
                                timeoutMilliseconds: Int32) throws(SystemError) -> FileDescriptor {
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let socket = FileDescriptor(rawValue: try Syscall.retryingEINTR("socket", subject: subject) {
            Glibc.socket(address.ai_family, flags, address.ai_protocol)
        })
        do throws(SystemError) {
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                guard address.ai_family == AF_INET, inet_pton(AF_INET, source, &local.sin_addr) == 1 else {
                    throw SystemError(operation: "bind", errno: EINVAL, subject: "\(source) (an IPv4 source for \(subject))")
                }
                try Syscall.retryingEINTR("bind", subject: source) {
                    withUnsafePointer(to: &local) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                    }
                }
            }
            if Glibc.connect(socket.rawValue, address.ai_addr, address.ai_addrlen) == -1 {
                let code = Syscall.errno
                guard code == EINPROGRESS || code == EINTR else { throw SystemError(operation: "connect", errno: code, subject: subject) }
                if try socket.poll(events: Int16(POLLOUT), timeoutMilliseconds: timeoutMilliseconds) == 0 {
                    throw SystemError(operation: "connect", errno: ETIMEDOUT, subject: subject)
                }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                try Syscall.retryingEINTR("getsockopt", subject: subject) {
                    getsockopt(socket.rawValue, SOL_SOCKET, SO_ERROR, &error, &length)
                }
                if error != 0 { throw SystemError(operation: "connect", errno: error, subject: subject) }
            }
            return socket
        } catch {
            try? socket.close()
            throw error
        }
    }

    /// A listening socket on 127.0.0.1 (`port` 0 = any free port) and the port it got.
    public static func listenLoopback(port: Int = 0, backlog: Int32 = 16) throws(SystemError) -> (socket: FileDescriptor, port: Int) {
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let socket = FileDescriptor(rawValue: try Syscall.retryingEINTR("socket") { Glibc.socket(AF_INET, flags, 0) })
        do throws(SystemError) {
            var reuse: Int32 = 1
            try Syscall.retryingEINTR("setsockopt") {
                setsockopt(socket.rawValue, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            let bound = try IPv4Bind.bind(socket, to: address, subject: "127.0.0.1:\(port)")
            try Syscall.retryingEINTR("listen") { Glibc.listen(socket.rawValue, backlog) }
            return (socket, bound)
        } catch {
            try? socket.close()
            throw error
        }
    }
}
