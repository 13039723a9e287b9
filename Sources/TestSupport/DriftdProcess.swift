import Foundation

/// The built `driftd` binary run as a child process, as systemd or a field tester would.
public final class DriftdProcess: @unchecked Sendable {
    /// The package root, found from this file's path.
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The debug `driftd` binary next to the test bundle, if it was built.
    public static var binaryPath: String? {
        let candidates = [
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("driftd").path,
            packageRoot + "/.build/debug/driftd",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public let process: Process
    public let stderrPath: String

    /// Starts `driftd arguments…` with `environment` added to a minimal one; stderr goes to a file.
    /// With `descriptorLimit`, driftd runs under that `ulimit -n` (through `sh`, which `exec`s it).
    public init(arguments: [String], environment: [String: String] = [:], stderrPath: String, descriptorLimit: Int? = nil) throws {
        guard let binary = Self.binaryPath else {
            throw Missing(description: "driftd binary not built (run `swift build --product driftd`)")
        }
        process = Process()
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", binary] + Self.withFreePort(arguments)
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = Self.withFreePort(arguments)
        }
        process.currentDirectoryURL = URL(fileURLWithPath: Self.packageRoot)
        var env = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        env.merge(environment) { _, new in new }
        process.environment = env
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        self.stderrPath = stderrPath
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits (on its own thread) up to `timeout` for the child to exit; its status, or `nil`.
    public func waitForExit(timeout: Duration) async throws -> Int32? {
        let process = self.process
        return try await runBlocking {
            let deadline = ContinuousClock.now + timeout
            while process.isRunning && ContinuousClock.now < deadline {
                usleep(10_000)
            }
            return process.isRunning ? nil : process.terminationStatus
        }
    }

    /// What the child wrote to stderr so far.
    public var stderr: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
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
        return try await runBlocking {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = Self.withFreePort(arguments)
            process.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
            var env = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
            env.merge(environment) { _, new in new }
            process.environment = env
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            // Both pipes are closed: the child is exiting (a few seconds at most).
            guard TestSupport.waitForExit(process, timeout: .seconds(30)) else {
                process.terminate()
                return (-1, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
            }
            return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
        }
    }

    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }
}
