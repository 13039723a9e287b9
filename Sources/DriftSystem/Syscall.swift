import CDriftSys

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one internal layer through which Drift Box calls libc.
///
/// Each helper retries `EINTR`, turns `-1` into a ``SystemError`` carrying
/// errno and the subject, and returns the call's result otherwise.
public enum Syscall {
    /// The calling thread's errno.
    @inlinable
    public static var errno: Int32 { drift_errno() }

    /// Runs `body` until it returns something other than `-1` with `EINTR`.
    ///
    /// - Returns: the call's non-negative result.
    /// - Throws: ``SystemError`` for any other failure.
    @inlinable
    @discardableResult
    public static func retryingEINTR<Result: BinaryInteger>(
        _ operation: String,
        subject: String? = nil,
        _ body: () -> Result
    ) throws(SystemError) -> Result {
        while true {
            let result = body()
            if result == -1 {
                let code = drift_errno()
                if code == EINTR { continue }
                throw SystemError(operation: operation, errno: code, subject: subject)
            }
            return result
        }
    }

    /// Like ``retryingEINTR(_:subject:_:)`` but `EAGAIN`/`EWOULDBLOCK` return `nil`
    /// (a non-blocking descriptor with nothing to do).
    @inlinable
    public static func retryingEINTRNonBlocking<Result: BinaryInteger>(
        _ operation: String,
        subject: String? = nil,
        _ body: () -> Result
    ) throws(SystemError) -> Result? {
        while true {
            let result = body()
            if result == -1 {
                let code = drift_errno()
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return nil }
                throw SystemError(operation: operation, errno: code, subject: subject)
            }
            return result
        }
    }
}
