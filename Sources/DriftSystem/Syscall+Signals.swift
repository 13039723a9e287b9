#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscall {
    /// `kill(2)`: sends `signal` (e.g. `SIGKILL`) to process `pid`.
    public static func sendSignal(_ signal: Int32, to pid: Int32) throws(SystemError) {
        #if canImport(Glibc) || canImport(Musl)
        try retryingEINTR("kill", subject: "pid \(pid)") { Glibc.kill(pid, signal) }
        #else
        try retryingEINTR("kill", subject: "pid \(pid)") { Darwin.kill(pid, signal) }
        #endif
    }
}
