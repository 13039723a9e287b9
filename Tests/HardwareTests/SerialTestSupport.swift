import Foundation
import Hardware
import Logging
import Synchronization
import Testing
import TestSupport

/// A swift-log handler that keeps messages, to check what the serial code logged.
final class CapturedLog: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let entries = Mutex<[Entry]>([])

    var all: [Entry] { entries.withLock { $0 } }

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    /// A logger whose output lands here.
    func logger(label: String = "test.serial") -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var flattened: [String: String] = [:]
            for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
                flattened[key] = "\(value)"
            }
            log.append(Entry(level: event.level, message: "\(event.message)", metadata: flattened))
        }
    }
}

/// A temporary directory removed when the value is released.
final class SerialTemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "drift-serial-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Reads from `port` until `count` bytes arrived; fails the test after `timeout`.
func readExactly(_ port: any SerialPort, count: Int, timeout: Duration = .seconds(5)) async throws -> [UInt8] {
    let deadline = ContinuousClock.now + timeout
    var received: [UInt8] = []
    while received.count < count {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { break }
        received += try await port.read(upTo: count - received.count, timeout: remaining)
    }
    #expect(received.count == count, "expected \(count) bytes within \(timeout), got \(received.count)")
    return received
}

/// The error thrown by `body`, if any.
func serialError(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

/// How a read task ended, observed with a time bound.
enum ReadOutcome: Sendable, Equatable {
    case bytes([UInt8])
    case failed(SerialError)
    case otherError(String)
    /// Still running after the bound: it missed its wake-up (it is cancelled).
    case stuck
}

/// Waits at most `limit` for `task`; cancels it if it is still running then.
func outcome(of task: Task<[UInt8], any Error>, within limit: Duration = .seconds(5)) async throws -> ReadOutcome {
    let result = try await withinTimeLimit(limit) { () async -> ReadOutcome in
        await withTaskCancellationHandler {
            do {
                return .bytes(try await task.value)
            } catch let error as SerialError {
                return .failed(error)
            } catch {
                return .otherError("\(error)")
            }
        } onCancel: {
            task.cancel()
        }
    }
    return result ?? .stuck
}

/// An integer shared between a test and the tasks it starts.
final class LockedCounter: Sendable {
    private let storage = Mutex(0)
    var value: Int { storage.withLock { $0 } }
    func set(_ newValue: Int) { storage.withLock { $0 = newValue } }
}
