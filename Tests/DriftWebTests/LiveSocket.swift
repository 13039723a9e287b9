import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// A real WebSocket client to the visitor API's live routes, on SwiftNIO's own HTTP upgrade and
/// WebSocket codec (RFC 6455: masked client frames, pings answered, the close handshake). Keeps
/// every text message it receives (parsed as JSON) so a test can wait for one by predicate.
final class LiveSocket: Sendable {
    struct Refused: Error, CustomStringConvertible {
        var reason: String
        var description: String { "live socket refused: \(reason)" }
    }

    private struct State {
        var messages: [JSON] = []
        var finished = false
        var error: String?
        var closeCode: WebSocketErrorCode?
        var closeSent = false
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

    private typealias Frames = NIOAsyncChannel<WebSocketFrame, WebSocketFrame>

    private enum Upgrade: Sendable {
        case upgraded(Frames)
        case refused
    }

    /// Connects to `path` (token as `?token=`). Throws ``Refused`` when the upgrade is refused.
    /// `headers` go with the upgrade request (e.g. `Authorization` instead of the query).
    static func connect(port: Int, path: String, token: String?, headers: HTTPFields = [:],
                        timeout: Duration = .seconds(20)) async throws -> LiveSocket {
        let query = token.map { "?token=\($0)" } ?? ""
        var request = HTTPRequestHead(version: .http1_1, method: .GET, uri: path + query)
        request.headers.add(name: "Host", value: "127.0.0.1:\(port)")
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        let head = request  // the channel initializer runs on the event loop: it captures a constant
        let upgrade: EventLoopFuture<Upgrade>
        do {
            upgrade = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: 1 << 20) { channel, _ in
                            channel.eventLoop.makeCompletedFuture { .upgraded(try Frames(wrappingChannelSynchronously: channel)) }
                        }
                        let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
                            upgradeRequestHead: head, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in
                                channel.close(promise: nil)
                                return channel.eventLoop.makeSucceededFuture(.refused)
                            })
                        let timer = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) { channel.close(promise: nil) }
                        // The server's first frames can come in the same read as its 101:
                        // NIO's default drops what follows the answer's head.
                        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                        pipeline.leftOverBytesStrategy = .forwardBytes
                        let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                            configuration: pipeline)
                        upgraded.whenComplete { _ in timer.cancel() }
                        return upgraded
                    }
                }
        } catch {
            throw Refused(reason: "no connection: \(error)")
        }
        let frames: Frames
        do {
            guard case .upgraded(let upgraded) = try await upgrade.get() else {
                throw Refused(reason: "the server answered without upgrading")
            }
            frames = upgraded
        } catch let refused as Refused {
            throw refused
        } catch {
            throw Refused(reason: "the upgrade failed or timed out: \(error)")
        }
        let socket = LiveSocket()
        socket.run(frames)
        return socket
    }

    /// Carries the connection: writes what the test sends, reads every frame until the close.
    private func run(_ frames: Frames) {
        let stream = outgoingStream
        Task { [self] in
            do {
                try await frames.executeThenClose { inbound, outbound in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await item in stream {
                                do {
                                    switch item {
                                    case .text(let line):
                                        try await outbound.write(Self.frame(.text, ByteBuffer(string: line)))
                                    case .frames(let frames):
                                        for frame in frames { try await outbound.write(Self.masked(frame)) }
                                    case .close:
                                        // Marked first: the server's answering close may come
                                        // before this write returns, and needs no answer.
                                        self.state.withLock { $0.closeSent = true }
                                        try await outbound.write(Self.closeFrame(.normalClosure))
                                        return
                                    }
                                } catch {
                                    return  // the server closed; reading sees how
                                }
                            }
                        }
                        var pending: ByteBuffer?
                        reading: for try await frame in inbound {
                            switch frame.opcode {
                            case .text:
                                pending = frame.unmaskedData
                                if frame.fin, let whole = pending { self.received(whole); pending = nil }
                            case .continuation:
                                var data = frame.unmaskedData
                                pending?.writeBuffer(&data)
                                if frame.fin, let whole = pending { self.received(whole); pending = nil }
                            case .ping:
                                try? await outbound.write(Self.frame(.pong, frame.unmaskedData))
                            case .connectionClose:
                                var data = frame.unmaskedData
                                let code = data.readWebSocketErrorCode()
                                self.state.withLock { $0.closeCode = code }
                                if !self.state.withLock({ $0.closeSent }) {
                                    try? await outbound.write(Self.closeFrame(code ?? .normalClosure))
                                }
                                break reading
                            default:
                                continue
                            }
                        }
                        group.cancelAll()
                    }
                }
            } catch {
                self.state.withLock { $0.error = "\(error)" }
            }
            self.state.withLock { $0.finished = true }
        }
    }

    private func received(_ text: ByteBuffer) {
        let line = String(buffer: text)
        state.withLock { $0.messages.append(JSON.parse(line) ?? .string(line)) }
    }

    /// A client frame: masked with a fresh key, as RFC 6455 requires of every client frame.
    private static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer, fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, maskKey: .random(), data: data)
    }

    private static func masked(_ frame: WebSocketFrame) -> WebSocketFrame {
        self.frame(frame.opcode, frame.unmaskedData, fin: frame.fin)
    }

    private static func closeFrame(_ code: WebSocketErrorCode) -> WebSocketFrame {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        return frame(.connectionClose, data)
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
