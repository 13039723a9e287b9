import CDriftSys
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A child process started with `posix_spawn`, with an **empty signal mask and every signal
/// at its default disposition**, whatever the parent blocks or ignores.
///
/// driftd blocks and ignores SIGTERM, SIGINT, SIGHUP and SIGUSR1/2 for its graceful shutdown
/// (service-lifecycle); a child started with Foundation's `Process` inherits that mask and
/// those dispositions across `exec`, so neither SIGTERM nor Ctrl-C reached it (the
/// Mosquitto that `driftd bench mqtt` started stayed behind, `SigBlk: …4a03`). Everything
/// driftd starts goes through here. The child gets only stdin, stdout and stderr: every other
/// descriptor is closed in it, close-on-exec or not.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// The exit status once reaped (a pid is reaped once; later calls must not wait on a stranger).
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments` (not including argv[0]) and `environment`
    /// (`nil`: the parent's); stdin is /dev/null, stdout and stderr go to `outputPath`
    /// (`nil`: /dev/null).
    public convenience init(executable: String, arguments: [String], environment: [String: String]? = nil,
                            outputPath: String? = nil) throws(SystemError) {
        try self.init(executable: executable, arguments: arguments, environment: environment,
                      stdoutPath: outputPath, stderrPath: nil)
    }

    /// Starts `executable` with `arguments` (not including argv[0]) and `environment`
    /// (`nil`: the parent's) in `workingDirectory` (`nil`: the parent's); stdin is /dev/null,
    /// stdout is appended to `stdoutPath` (`nil`: /dev/null) and stderr to `stderrPath`
    /// (`nil`: wherever stdout goes).
    public init(executable: String, arguments: [String], environment: [String: String]? = nil,
                workingDirectory: String? = nil, stdoutPath: String?, stderrPath: String?) throws(SystemError) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var every = sigset_t()
        sigfillset(&every)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let workingDirectory { _ = drift_spawn_actions_addchdir(&actions, workingDirectory) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        if let stderrPath {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        // Nothing else crosses into the child: a descriptor opened without close-on-exec (NIO
        // accepts connections without it) would otherwise keep a visitor's connection open
        // after driftd closed it, for as long as the child lives.
        _ = drift_spawn_actions_addclosefrom(&actions, 3)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env: [UnsafeMutablePointer<CChar>?]? = environment.map { values in
            values.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { env?.forEach { free($0) } }
        var child: pid_t = 0
        let result = argv.withUnsafeBufferPointer { argvBuffer in
            if let env {
                return env.withUnsafeBufferPointer { envBuffer in
                    posix_spawn(&child, executable, &actions, &attributes, argvBuffer.baseAddress!, envBuffer.baseAddress!)
                }
            }
            return posix_spawn(&child, executable, &actions, &attributes, argvBuffer.baseAddress!, environ)
        }
        guard result == 0 else { throw SystemError(operation: "posix_spawn", errno: result, subject: executable) }
        pid = child
    }

    /// Sends `signal` to the child (nothing once it has been reaped).
    public func send(_ signal: Int32) {
        guard reaped.withLock({ $0 == nil }) else { return }
        kill(pid, signal)
    }

    /// Reaps the child if it has exited: its exit status, or `128 + signal`; `nil` while it runs.
    /// Once reaped, the status is kept and returned again.
    public func exitStatus() -> Int32? {
        reaped.withLock { reaped -> Int32? in
            if let reaped { return reaped }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            guard result == pid else { return nil }
            reaped = Self.decode(status)
            return reaped
        }
    }

    /// Whether the child is still running (reaps it when it has exited).
    public var isRunning: Bool { exitStatus() == nil }

    /// Waits (blocking this thread) until the child exits: its exit status, or `128 + signal`.
    /// Call it on a thread made for blocking, never on the cooperative pool.
    public func waitUntilExit() -> Int32 {
        if let status = exitStatus() { return status }
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, 0) } while result == -1 && errno == EINTR
        // Reaped meanwhile by `exitStatus()` on another thread: ECHILD, and the kept status.
        if result != pid { return exitStatus() ?? -1 }
        let decoded = Self.decode(status)
        reaped.withLock { $0 = $0 ?? decoded }
        return decoded
    }

    /// Terminates the child: SIGTERM, then SIGKILL if it is still there after `grace`
    /// milliseconds; reaps it. Blocks this thread for at most `grace` plus a moment.
    @discardableResult
    public func terminate(graceMilliseconds grace: Int = 2_000) -> Int32 {
        if let status = exitStatus() { return status }
        send(SIGTERM)
        for _ in 0..<max(1, grace / 10) {
            if let status = exitStatus() { return status }
            usleep(10_000)
        }
        send(SIGKILL)
        return waitUntilExit()
    }

    static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
