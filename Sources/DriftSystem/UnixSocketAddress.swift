#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An `AF_UNIX` socket address: a filesystem path, or an abstract name written `@name`.
public struct UnixSocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address as written (`/run/x.sock` or `@name`).
    public let description: String

    /// Validates `address` (non-empty, fits `sun_path`).
    public init(_ address: String) throws(SystemError) {
        guard !address.isEmpty else {
            throw SystemError(operation: "sockaddr_un", errno: EINVAL, subject: address)
        }
        guard address.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw SystemError(operation: "sockaddr_un", errno: ENAMETOOLONG, subject: address)
        }
        self.description = address
    }

    /// Whether this is an abstract-namespace address (`@name`).
    public var isAbstract: Bool { description.hasPrefix("@") }

    /// Calls `body` with a `sockaddr` pointer and its exact length.
    ///
    /// Abstract names become a leading NUL followed by the name without
    /// terminator (as systemd and the kernel expect); paths are NUL-terminated.
    public func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows -> Result {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(description.utf8)
        let isAbstract = self.isAbstract
        let used: Int = withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            if isAbstract {
                for (index, byte) in bytes.dropFirst().enumerated() { raw[index + 1] = byte }
                return bytes.count
            }
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            return bytes.count + 1
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + used)
        return try withUnsafePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }
}
