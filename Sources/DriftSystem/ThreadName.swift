#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The kernel's name of the calling thread (`/proc/<pid>/task/<tid>/comm`: what `top -H`,
/// `ps -L`, core dumps and the benchmarks' per-thread CPU see).
///
/// Foundation's `Thread.current.name` reaches the kernel only when the thread that started
/// this one has already recorded its handle. On a busy CPU the new thread often runs first,
/// and then it keeps its creator's name (a pool thread's `…default-qos`). This writes the
/// kernel's name directly (`pthread_setname_np` is not exported to Swift).
public enum ThreadName {
    /// Names the calling thread `name` (the kernel keeps its first 15 bytes) in Foundation and
    /// in the kernel.
    public static func setCurrent(_ name: String) {
        #if canImport(Glibc) || canImport(Musl)
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard comm >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
        close(comm)
        #endif
    }
}
