import CDriftSys

/// Opening the master side of a new pseudo-terminal.
public enum PseudoTerminalMaster {
    /// `posix_openpt` + `grantpt` + `unlockpt` (close-on-exec), non-blocking, and the slave's
    /// path (e.g. `/dev/pts/7`). The caller owns and closes the descriptor.
    public static func open() throws(SystemError) -> (master: FileDescriptor, slavePath: String) {
        let descriptor = FileDescriptor(rawValue: try Syscall.retryingEINTR("posix_openpt") { drift_pty_open_master() })
        var name = [CChar](repeating: 0, count: 128)
        let status = drift_pty_slave_name(descriptor.rawValue, &name, name.count)
        if status != 0 {
            try? descriptor.close()
            throw SystemError(operation: "ptsname_r", errno: status)
        }
        do {
            try descriptor.setNonBlocking(true)
        } catch {
            try? descriptor.close()
            throw error
        }
        return (descriptor, String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
