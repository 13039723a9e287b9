import CDriftSys

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File and directory calls for durable storage (atomic media writes, erasure).
extension Syscall {
    /// `rename(2)`: atomically replaces `destination` with `source` (same file system).
    public static func rename(_ source: String, to destination: String) throws(SystemError) {
        #if canImport(Glibc) || canImport(Musl)
        try retryingEINTR("rename", subject: "\(source) -> \(destination)") { Glibc.rename(source, destination) }
        #else
        try retryingEINTR("rename", subject: "\(source) -> \(destination)") { Darwin.rename(source, destination) }
        #endif
    }

    /// `unlink(2)`: removes a file name.
    public static func unlink(_ path: String) throws(SystemError) {
        #if canImport(Glibc) || canImport(Musl)
        try retryingEINTR("unlink", subject: path) { Glibc.unlink(path) }
        #else
        try retryingEINTR("unlink", subject: path) { Darwin.unlink(path) }
        #endif
    }

    /// `rmdir(2)`: removes an empty directory.
    public static func removeDirectory(_ path: String) throws(SystemError) {
        #if canImport(Glibc) || canImport(Musl)
        try retryingEINTR("rmdir", subject: path) { Glibc.rmdir(path) }
        #else
        try retryingEINTR("rmdir", subject: path) { Darwin.rmdir(path) }
        #endif
    }

    /// `mkdir(2)` of one directory.
    /// - Returns: `true` when it was created, `false` when something already existed there.
    @discardableResult
    public static func makeDirectory(_ path: String, mode: mode_t = 0o750) throws(SystemError) -> Bool {
        while true {
            #if canImport(Glibc) || canImport(Musl)
            let result = Glibc.mkdir(path, mode)
            #else
            let result = Darwin.mkdir(path, mode)
            #endif
            if result == 0 { return true }
            let code = errno
            if code == EINTR { continue }
            if code == EEXIST { return false }
            throw SystemError(operation: "mkdir", errno: code, subject: path)
        }
    }

    /// Flushes a directory's entries to stable storage (`open(O_DIRECTORY)` + `fsync`), so a
    /// rename, creation or removal inside it survives power loss.
    public static func syncDirectory(_ path: String) throws(SystemError) {
        let directory = try FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY)
        defer { try? directory.close() }
        try directory.sync()
    }
}

extension FileDescriptor {
    /// The size of the open file, in bytes (`lseek(SEEK_END)`; the offset moves to the end).
    public func seekToEnd() throws(SystemError) -> Int {
        let end = try Syscall.retryingEINTR("lseek") { lseek(rawValue, 0, SEEK_END) }
        return Int(end)
    }

    /// Moves the offset back to the start (`lseek(SEEK_SET)`).
    public func seekToStart() throws(SystemError) {
        try Syscall.retryingEINTR("lseek") { lseek(rawValue, 0, SEEK_SET) }
    }
}
