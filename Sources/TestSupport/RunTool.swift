import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One run of a program to its end: exit status (`128 + signal` when killed, `-1` when it
/// outlived its time limit and was killed), stdout and stderr.
///
/// Started with `posix_spawn` (``DriftSystem/ChildProcess``: a clean signal mask and default
/// dispositions), output collected in files and reaped with `waitpid` — not Foundation's
/// `Process`, whose exit monitoring runs in a run loop of its own and, with a thousand tests
/// beside it, once left a finished child a zombie and its test waiting forever.
public struct CapturedRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Runs `executable arguments…` to completion on the calling thread (blocking: call it on
    /// a thread made for blocking, e.g. inside ``runBlocking(_:)``). A run still going after
    /// `timeout` is terminated (SIGTERM, then SIGKILL) and reported with status -1. With
    /// `mergingStderr`, stderr goes into ``stdout`` in the order written (``stderr`` is empty).
    public static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                                   workingDirectory: String? = nil, timeout: Duration = .seconds(30),
                                   mergingStderr: Bool = false) throws -> CapturedRun {
        let directory = try TemporaryDirectory(prefix: "run")
        defer { directory.remove() }
        let outPath = directory.appending("stdout"), errPath = directory.appending("stderr")
        let child = try ChildProcess(executable: executable, arguments: arguments, environment: environment,
                                     workingDirectory: workingDirectory, stdoutPath: outPath, stderrPath: mergingStderr ? nil : errPath)
        let deadline = ContinuousClock.now + timeout
        var status = child.exitStatus()
        while status == nil, ContinuousClock.now < deadline {
            usleep(5_000)
            status = child.exitStatus()
        }
        if status == nil {
            child.terminate(graceMilliseconds: 1_000)
        }
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return CapturedRun(status: status ?? -1, stdout: read(outPath), stderr: read(errPath))
    }

    /// ``runBlocking(_:_:environment:workingDirectory:timeout:)`` on a thread made for blocking.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           workingDirectory: String? = nil, timeout: Duration = .seconds(30)) async throws -> CapturedRun {
        try await TestSupport.runBlocking {
            try runBlocking(executable, arguments, environment: environment, workingDirectory: workingDirectory, timeout: timeout)
        }
    }
}

/// Runs a short command-line tool (openssl, mosquitto_passwd, hostapd -dd, dnsmasq --test) to
/// completion: its exit status and its stdout and stderr together. A tool still running after
/// `timeout` is terminated and reported as exit status -1. Blocks the calling thread.
public func runToCompletion(_ executable: String, _ arguments: [String],
                            timeout: Duration = .seconds(30)) throws -> (status: Int32, output: String) {
    let run = try CapturedRun.runBlocking(executable, arguments, timeout: timeout, mergingStderr: true)
    return (run.status, run.stdout)
}

/// ``runToCompletion(_:_:timeout:)`` that throws with the command line and output unless the tool exits 0.
func runTool(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(30)) throws {
    let (status, text) = try runToCompletion(executable, arguments, timeout: timeout)
    guard status == 0 else {
        throw ToolError(description: "\(executable) \(arguments.joined(separator: " ")) exited with \(status): \(text)")
    }
}

/// A tool run by ``runTool(_:_:timeout:)`` that failed, with its command line and output.
public struct ToolError: Error, CustomStringConvertible {
    public var description: String
}
