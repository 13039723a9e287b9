import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a short command-line tool (openssl, mosquitto_passwd, hostapd -dd, dnsmasq --test) to
/// completion: its exit status and its stdout and stderr together. A tool still running after
/// `timeout` is terminated and reported as exit status -1.
public func runToCompletion(_ executable: String, _ arguments: [String],
                            timeout: Duration = .seconds(30)) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    guard waitForExit(process, timeout: timeout) else {
        process.terminate()
        return (-1, text)
    }
    return (process.terminationStatus, text)
}

/// Waits until `process` has exited (`true`) or `timeout` has passed (`false`), by polling:
/// Foundation's `waitUntilExit()` once sat in its run loop after the child had exited.
@discardableResult
public func waitForExit(_ process: Process, timeout: Duration) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while process.isRunning && ContinuousClock.now < deadline { usleep(5_000) }
    return !process.isRunning
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
