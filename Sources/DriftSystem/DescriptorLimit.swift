#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's descriptor limit (`RLIMIT_NOFILE`).
public enum DescriptorLimit {
    /// Raises the soft limit to the hard one (a shell's 1,024 is a default, not a decision:
    /// the hard limit is what the administrator or the unit's `LimitNOFILE` allows) and
    /// returns the soft limit now in force.
    ///
    /// - Throws: ``SystemError`` when the limit cannot be read; a refused raise keeps the
    ///   old soft limit, which is returned.
    public static func raiseToHard() throws(SystemError) -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        try Syscall.retryingEINTR("getrlimit", subject: "RLIMIT_NOFILE") { getrlimit(resource, &limit) }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: min(limit.rlim_cur, rlim_t(Int32.max)))
    }
}
