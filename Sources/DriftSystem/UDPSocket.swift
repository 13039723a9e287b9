import CDriftSys

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// IPv4 UDP datagram calls, through the syscall layer: the simulated radio's medium.
///
/// Addresses are numeric IPv4 (`127.0.0.1`); descriptors are close-on-exec and
/// non-blocking, owned and closed by the caller. Receive with ``receive(_:capacity:)``
/// (which reuses ``UnixSocket/receive(_:capacity:)``: `nil` = nothing queued).
public enum UDPSocket {
    /// A UDP socket bound to `host:port` (`port` 0 = any free port) and the port it got.
    public static func bind(host: String, port: Int) throws(SystemError) -> (socket: FileDescriptor, port: Int) {
        let address = try socketAddress(host: host, port: port)
        let flags = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let socket = FileDescriptor(rawValue: try Syscall.retryingEINTR("socket") { Glibc.socket(AF_INET, flags, 0) })
        do throws(SystemError) {
            return (socket, try IPv4Bind.bind(socket, to: address, subject: "\(host):\(port)"))
        } catch {
            try? socket.close()
            throw error
        }
    }

    /// Sends one datagram to `host:port`. A peer that is not listening is not an error
    /// (UDP); a full socket buffer is reported as `EAGAIN`.
    public static func send(_ socket: FileDescriptor, _ bytes: [UInt8], host: String, port: Int) throws(SystemError) {
        var address = try socketAddress(host: host, port: port)
        let result: Int = try Syscall.retryingEINTR("sendto", subject: "\(host):\(port)") {
            bytes.withUnsafeBytes { raw in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.sendto(socket.rawValue, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
        }
        _ = result
    }

    /// Receives one datagram (at most `capacity` bytes; longer ones are cut by the kernel),
    /// or `nil` when none is queued.
    public static func receive(_ socket: FileDescriptor, capacity: Int = 2_048) throws(SystemError) -> [UInt8]? {
        try UnixSocket.receive(socket, capacity: capacity)
    }

    private static func socketAddress(host: String, port: Int) throws(SystemError) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port).bigEndian)
        guard (0...65_535).contains(port), inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw SystemError(operation: "inet_pton", errno: EINVAL, subject: "\(host):\(port) (numeric IPv4 expected)")
        }
        return address
    }
}
