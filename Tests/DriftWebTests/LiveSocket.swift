import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOWebSocket
import Synchronization

/// A real WebSocket client to the visitor API's live routes. Keeps every text message
/// it receives (parsed as JSON) so a test can wait for one by predicate.
final class LiveSocket: Sendable {
    struct Refused: Error, CustomStringConvertible {
        var reason: String
        var description: String { "live socket refused: \(reason)" }
    }

    private struct State {
        var messages: [JSON] = []
        var opened = false
        var finished = false
        var error: String?
    }

    private let state = Mutex(State())
    private let outgoing: AsyncStream<String?>.Continuation
    private let outgoingStream: AsyncStream<String?>

    private init() {
        (outgoingStream, outgoing) = AsyncStream.makeStream(of: String?.self)
    }

    /// Connects to `path` (token as `?token=`). Throws ``Refused`` when the upgrade is refused.
    /// `headers` go with the upgrade request (e.g. `Authorization` instead of the query).
    static func connect(port: Int, path: String, token: String?, headers: HTTPFields = [:],
                        timeout: Duration = .seconds(20)) async throws -> LiveSocket {
        let socket = LiveSocket()
        let query = token.map { "?token=\($0)" } ?? ""
        socket.start(url: "ws://127.0.0.1:\(port)\(path)\(query)", headers: headers)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (opened, finished, error) = socket.state.withLock { ($0.opened, $0.finished, $0.error) }
            if opened { return socket }
            if finished { throw Refused(reason: error ?? "closed before opening") }
            try await Task.sleep(for: .milliseconds(20))
        }
        socket.close()
        throw Refused(reason: "timed out")
    }

    private func start(url: String, headers: HTTPFields) {
        var logger = Logger(label: "live-socket-test")
        logger.logLevel = .critical
        let stream = outgoingStream
        Task { [self] in
            do {
                try await WebSocketClient.connect(url: url, configuration: .init(additionalHeaders: headers), logger: logger) { inbound, outbound, _ in
                    self.state.withLock { $0.opened = true }
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                if case .text(let text) = message {
                                    self.state.withLock { $0.messages.append(JSON.parse(text) ?? .string(text)) }
                                }
                            }
                        }
                        group.addTask {
                            for await line in stream {
                                guard let line else {
                                    try await outbound.close(.normalClosure, reason: nil)
                                    // Wait for the server's close to end the inbound side.
                                    try await Task.sleep(for: .seconds(30))
                                    return
                                }
                                try await outbound.write(.text(line))
                            }
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                }
            } catch {
                self.state.withLock { $0.error = "\(error)" }
            }
            self.state.withLock { $0.finished = true }
        }
    }

    /// Sends a text message.
    func send(_ text: String) {
        outgoing.yield(text)
    }

    /// Starts a clean close (returns at once; see ``waitClosed(timeout:)``).
    func close() {
        outgoing.yield(nil)
        outgoing.finish()
    }

    /// Closes and waits until the connection has ended.
    func closeAndWait(timeout: Duration = .seconds(20)) async {
        close()
        _ = await waitClosed(timeout: timeout)
    }

    /// Whether the connection ended (by either side) within `timeout`.
    func waitClosed(timeout: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.finished }) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    var isClosed: Bool { state.withLock { $0.finished } }

    /// Every message received so far.
    var messages: [JSON] { state.withLock { $0.messages } }

    /// The first received message matching `predicate`, waiting up to `timeout`.
    func first(timeout: Duration = .seconds(20), where predicate: (JSON) -> Bool) async -> JSON? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = messages.first(where: predicate) { return found }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The first message of `type` (and matching `predicate`).
    func first(type: String, timeout: Duration = .seconds(20), where predicate: (JSON) -> Bool = { _ in true }) async -> JSON? {
        await first(timeout: timeout) { $0["type"].string == type && predicate($0) }
    }
}
