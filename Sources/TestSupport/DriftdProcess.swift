import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The built `driftd` binary run as a child process, as systemd or a field tester would: started
/// with `posix_spawn` (``DriftSystem/ChildProcess``: a clean signal mask, default dispositions —
/// the test process blocks signals of its own), reaped by `waitpid` on a thread made for blocking.
public final class DriftdProcess: Sendable {
    /// The package root, found from this file's path.
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The checkout whose `driftd` the process tests run: its debug binary, its board files
    /// (`board/sim.toml`) and its folder as the working directory. This package unless
    /// `DRIFTD_CHECKOUT` names another one — an older commit's worktree, to see a process test
    /// fail on the daemon it was written against (docs/testing.md, issue 18's failures).
    public static let checkout: String = ProcessInfo.processInfo.environment["DRIFTD_CHECKOUT"] ?? packageRoot

    /// The debug `driftd` binary next to the test bundle, if it was built (with
    /// `DRIFTD_CHECKOUT`, only that checkout's `.build/debug/driftd`).
    public static var binaryPath: String? {
        let candidates = checkout != packageRoot ? [checkout + "/.build/debug/driftd"] : [
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("driftd").path,
            packageRoot + "/.build/debug/driftd",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public let process: ChildProcess
    public let stderrPath: String

    /// The child's process id.
    public var pid: pid_t { process.pid }

    /// Whether the child is still running.
    public var isRunning: Bool { process.isRunning }

    /// Starts `driftd arguments…` with `environment` added to a minimal one; stderr goes to a file.
    /// With `descriptorLimit`, driftd runs under that `ulimit -n` (through `sh`, which `exec`s it).
    public init(arguments: [String], environment: [String: String] = [:], stderrPath: String, descriptorLimit: Int? = nil) throws {
        guard let binary = Self.binaryPath else {
            throw Missing(description: "driftd binary not built (run `swift build --product driftd`)")
        }
        let executable: String
        let argv: [String]
        if let descriptorLimit {
            executable = "/bin/sh"
            argv = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", binary] + Self.withFreePort(arguments)
        } else {
            executable = binary
            argv = Self.withFreePort(arguments)
        }
        var env = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        env.merge(environment) { _, new in new }
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        self.stderrPath = stderrPath
        process = try ChildProcess(executable: executable, arguments: argv, environment: env,
                                   workingDirectory: Self.checkout, stdoutPath: nil, stderrPath: stderrPath)
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        process.send(signal)
    }

    /// Waits (on its own thread) up to `timeout` for the child to exit; its status, or `nil`.
    public func waitForExit(timeout: Duration) async throws -> Int32? {
        let process = self.process
        return try await runBlocking {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let status = process.exitStatus() { return status }
                usleep(10_000)
            }
            return process.exitStatus()
        }
    }

    /// What the child wrote to stderr so far.
    public var stderr: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }

    deinit {
        if process.isRunning {
            process.send(SIGKILL)
            _ = process.waitUntilExit()
        }
    }

    /// `driftd run` without `--listen` gets `--listen 127.0.0.1:0`: daemons started by tests in
    /// parallel must not all bind the sim board's port 8080.
    static func withFreePort(_ arguments: [String]) -> [String] {
        guard arguments.first == "run", !arguments.contains("--listen"), !arguments.contains("--help") else { return arguments }
        return arguments + ["--listen", "127.0.0.1:0"]
    }

    /// Runs `driftd arguments…` to completion; `(status, stdout, stderr)`.
    public static func runToCompletion(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        guard let binary = binaryPath else { throw Missing(description: "driftd binary not built") }
        var env = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        env.merge(environment) { _, new in new }
        let run = try await CapturedRun.run(binary, Self.withFreePort(arguments), environment: env, workingDirectory: checkout,
                                            timeout: .seconds(120))
        return (run.status, run.stdout, run.stderr)
    }

    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }
}
