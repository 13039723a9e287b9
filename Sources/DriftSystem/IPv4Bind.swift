#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `bind(2)` of an IPv4 socket, then `getsockname(2)` for the port it got (the kernel
/// picks one for port 0). Shared by the TCP listener and the UDP radio medium.
enum IPv4Bind {
    static func bind(_ socket: FileDescriptor, to address: sockaddr_in, subject: String) throws(SystemError) -> Int {
        var address = address
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try Syscall.retryingEINTR("bind", subject: subject) {
            withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(socket.rawValue, $0, length) } }
        }
        try Syscall.retryingEINTR("getsockname") {
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.rawValue, $0, &length) }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
