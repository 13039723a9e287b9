#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscall {
    /// `realpath(3)`: `path` with every symlink, `.` and `..` resolved.
    ///
    /// Used before opening devices reached through links such as `/dev/serial0`
    /// or `/dev/serial/by-id/…`, whose libraries want the real node.
    /// - Throws: ``SystemError`` (`ENOENT` when the path or a link target is missing).
    public static func realPath(_ path: String) throws(SystemError) -> String {
        guard let resolved = realpath(path, nil) else {
            throw SystemError(operation: "realpath", errno: errno, subject: path)
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
