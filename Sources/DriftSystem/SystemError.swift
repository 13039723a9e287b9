#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed call into the operating system: which call, on what, and the errno it set.
///
/// Every `-1` or `NULL` returned by libc inside Drift Box becomes one of these
/// through ``Syscall``; nothing prints and aborts.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The C function that failed, e.g. `"open"`.
    public var operation: String
    /// The errno value at the time of failure.
    public var errno: Int32
    /// The path, device or other input the call was made on, when there is one.
    public var subject: String?

    public init(operation: String, errno: Int32, subject: String? = nil) {
        self.operation = operation
        self.errno = errno
        self.subject = subject
    }

    /// The system's text for ``errno`` (`strerror`).
    public var reason: String {
        String(cString: strerror(errno))
    }

    public var description: String {
        if let subject {
            return "\(operation)(\(subject)): \(reason) (errno \(errno))"
        }
        return "\(operation): \(reason) (errno \(errno))"
    }
}
