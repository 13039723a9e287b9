import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
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
        var closeCode: WebSocketErrorCode?
    }

    private enum Outgoing: Sendable {
        case text(String)
        case frames([WebSocketFrame])
        case close
    }

    private let state = Mutex(State())
    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let outgoingStream: AsyncStream<Outgoing>

    private init() {
        (outgoingStream, outgoing) = AsyncStream.makeStream(of: Outgoing.self)
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
                let closing = try await WebSocketClient.connect(url: url, configuration: .init(additionalHeaders: headers), logger: logger) { inbound, outbound, _ in
                    self.state.withLock { $0.opened = true }
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await item in stream {
                                do {
                                    switch item {
                                    case .text(let line): try await outbound.write(.text(line))
                                    case .frames(let frames): for frame in frames { try await outbound.write(.custom(frame)) }
                                    case .close:
                                        try await outbound.close(.normalClosure, reason: nil)
                                        return
                                    }
                                } catch {
                                    return  // the server closed; reading sees how
                                }
                            }
                        }
                        // Read until the server's close ends the inbound side.
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            if case .text(let text) = message {
                                self.state.withLock { $0.messages.append(JSON.parse(text) ?? .string(text)) }
                            }
                        }
                        group.cancelAll()
                    }
                }
                self.state.withLock { $0.closeCode = closing?.closeCode }
            } catch {
                self.state.withLock { $0.error = "\(error)" }
            }
            self.state.withLock { $0.finished = true }
        }
    }

    /// Sends a text message.
    func send(_ text: String) {
        outgoing.yield(.text(text))
    }

    /// Sends `text` as one message in fragments of `fragmentBytes` (a text frame, then
    /// continuation frames, the last with FIN).
    func sendFragmented(_ text: String, fragmentBytes: Int) {
        let bytes = Array(text.utf8)
        let starts = Array(stride(from: 0, to: max(bytes.count, 1), by: fragmentBytes))
        let frames = starts.enumerated().map { index, start in
            WebSocketFrame(fin: index == starts.count - 1, opcode: index == 0 ? .text : .continuation,
                           data: ByteBuffer(bytes: bytes[start..<min(start + fragmentBytes, bytes.count)]))
        }
        outgoing.yield(.frames(frames))
    }

    /// Starts a clean close (returns at once; see ``waitClosed(timeout:)``).
    func close() {
        outgoing.yield(.close)
        outgoing.finish()
    }

    /// The close code the server sent, once the connection ended (`nil` before, or when it
    /// ended without a close frame).
    var closeCode: WebSocketErrorCode? { state.withLock { $0.closeCode } }

    /// Why the connection failed, when it did.
    var failure: String? { state.withLock { $0.error } }

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
