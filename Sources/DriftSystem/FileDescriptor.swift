import CDriftSys

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw file descriptor number with typed, EINTR-safe operations.
///
/// This is a plain value: it does not own the descriptor. Types that own one
/// (serial ports, GPIO requests, sockets) close it exactly once themselves.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    public var rawValue: CInt
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// `open(2)` with `O_CLOEXEC` added.
    public static func open(_ path: String, flags: CInt, mode: mode_t = 0o644) throws(SystemError) -> FileDescriptor {
        let fd = try Syscall.retryingEINTR("open", subject: path) {
            #if canImport(Glibc) || canImport(Musl)
            Glibc.open(path, flags | O_CLOEXEC, mode)
            #else
            Darwin.open(path, flags | O_CLOEXEC, mode)
            #endif
        }
        return FileDescriptor(rawValue: fd)
    }

    /// `close(2)`. EINTR is not retried (on Linux the descriptor is gone either way).
    public func close() throws(SystemError) {
        #if canImport(Glibc) || canImport(Musl)
        let result = Glibc.close(rawValue)
        #else
        let result = Darwin.close(rawValue)
        #endif
        if result == -1 {
            let code = Syscall.errno
            if code == EINTR { return }
            throw SystemError(operation: "close", errno: code)
        }
    }

    /// `read(2)` into `buffer`; returns the byte count (0 at end of file), or `nil`
    /// when the descriptor is non-blocking and nothing is available.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        try Syscall.retryingEINTRNonBlocking("read") {
            #if canImport(Glibc) || canImport(Musl)
            Glibc.read(rawValue, buffer.baseAddress, buffer.count)
            #else
            Darwin.read(rawValue, buffer.baseAddress, buffer.count)
            #endif
        }
    }

    /// `write(2)` of as much of `bytes` as the kernel takes; `nil` if it would block.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        try Syscall.retryingEINTRNonBlocking("write") {
            #if canImport(Glibc) || canImport(Musl)
            Glibc.write(rawValue, bytes.baseAddress, bytes.count)
            #else
            Darwin.write(rawValue, bytes.baseAddress, bytes.count)
            #endif
        }
    }

    /// Writes all of `bytes`, waiting with `poll(2)` when the descriptor is non-blocking and full.
    public func writeAll(_ bytes: [UInt8], timeoutMilliseconds: Int32 = 5_000) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let start = offset
            let result: Result<Int?, SystemError> = bytes.withUnsafeBytes { raw in
                Result { () throws(SystemError) -> Int? in
                    try write(UnsafeRawBufferPointer(rebasing: raw[start...]))
                }
            }
            let written = try result.get()
            if let written {
                offset += written
            } else {
                let ready = try poll(events: Int16(POLLOUT), timeoutMilliseconds: timeoutMilliseconds)
                if ready == 0 {
                    throw SystemError(operation: "write", errno: ETIMEDOUT)
                }
            }
        }
    }

    /// `poll(2)` on this descriptor alone; returns the `revents` (0 on timeout).
    public func poll(events: Int16, timeoutMilliseconds: Int32) throws(SystemError) -> Int16 {
        var entry = pollfd(fd: rawValue, events: events, revents: 0)
        let count = try Syscall.retryingEINTR("poll") {
            #if canImport(Glibc) || canImport(Musl)
            Glibc.poll(&entry, 1, timeoutMilliseconds)
            #else
            Darwin.poll(&entry, 1, timeoutMilliseconds)
            #endif
        }
        return count == 0 ? 0 : entry.revents
    }

    /// Sets or clears `O_NONBLOCK`.
    public func setNonBlocking(_ enabled: Bool = true) throws(SystemError) {
        let flags = try Syscall.retryingEINTR("fcntl(F_GETFL)") { drift_fcntl_getfl(rawValue) }
        let updated = enabled ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        try Syscall.retryingEINTR("fcntl(F_SETFL)") { drift_fcntl_setfl(rawValue, updated) }
    }

    /// `fsync(2)`.
    public func sync() throws(SystemError) {
        try Syscall.retryingEINTR("fsync") { fsync(rawValue) }
    }

    /// Creates a pipe whose ends are close-on-exec; `(read, write)`.
    public static func pipe() throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
        var fds: [CInt] = [-1, -1]
        try Syscall.retryingEINTR("pipe2") { drift_pipe_cloexec(&fds) }
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }
}
