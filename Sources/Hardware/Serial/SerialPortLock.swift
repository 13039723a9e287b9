import DriftSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Advisory exclusive lock on an open serial device, so two openers (two
/// `driftd`s, or `driftd` and a terminal program that also uses `flock`, such as
/// picocom) do not both read the same port.
enum SerialPortLock {
    /// `flock(LOCK_EX | LOCK_NB)`; released when the descriptor closes.
    /// - Throws: ``SerialError/busy(path:)`` when another descriptor holds it.
    static func lock(_ descriptor: FileDescriptor, path: String) throws(SerialError) {
        let result: CInt?
        do {
            result = try Syscall.retryingEINTRNonBlocking("flock", subject: path) {
                flock(descriptor.rawValue, LOCK_EX | LOCK_NB)
            }
        } catch {
            throw SerialError.opening(error, path: path)
        }
        if result == nil { throw .busy(path: path) }
    }
}
