import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The first handler of every visitor connection, on raw bytes: admits the connection
/// through the ``VisitorDoor`` (or answers `503` and closes it), and closes a connection
/// whose first request header has not arrived whole within the header deadline (`408`) —
/// a client that connects and sends nothing, or a header a line at a time, holds a
/// descriptor for seconds, not forever. Later requests on a kept-alive connection are
/// bounded by the idle and request deadlines further up the pipeline
/// (``RequestDeadlineHandler``, Hummingbird's idle timeout).
///
/// It answers in raw HTTP/1.1 because nothing above it has spoken yet.
final class DoorGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase {
        /// Not active yet.
        case idle
        /// Admitted; the first request's header has not ended yet.
        case awaitingHead
        /// The first header ended (or the connection was answered): nothing more to watch.
        case passed
        /// Refused or timed out: the answer is written, the connection closing, input dropped.
        case closing
    }

    private let door: VisitorDoor
    private let headerTimeout: TimeAmount
    private var phase = Phase.idle
    private var ticket: VisitorDoor.Ticket?
    /// Kept while admitted, so the door can evict this connection from another thread.
    private var context: ChannelHandlerContext?
    private var deadline: Scheduled<Void>?
    /// Whether the last byte that was not CR was LF: a second LF ends the header.
    private var lastWasLineFeed = false

    init(door: VisitorDoor) {
        self.door = door
        self.headerTimeout = TimeAmount(door.limits.headerTimeout)
    }

    /// Whether the first request's header has ended (the connection is past the door's watch).
    var headComplete: Bool {
        if case .passed = phase { return true }
        return false
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch phase {
        case .closing:
            return
        case .awaitingHead:
            let buffer = unwrapInboundIn(data)
            if endsHeader(buffer) {
                phase = .passed
                deadline?.cancel()
                deadline = nil
                if let ticket { door.headArrived(ticket) }
            }
        case .idle, .passed:
            break
        }
        context.fireChannelRead(data)
    }

    /// Answers `error` in raw HTTP/1.1 and closes, dropping whatever the client still sends.
    func answerAndClose(context: ChannelHandlerContext, _ error: APIError) {
        phase = .closing
        deadline?.cancel()
        deadline = nil
        context.writeAndFlush(wrapOutboundOut(Self.rawResponse(error)), promise: nil)
        context.close(promise: nil)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard case .idle = phase else { return }
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        switch door.enter(client: address, evict: { eventLoop.execute { loopBound.value.evict() } }) {
        case .failure(let refusal):
            answerAndClose(context: context, Self.refusal(refusal))
            return
        case .success(let ticket):
            self.ticket = ticket
        }
        self.context = context
        phase = .awaitingHead
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: headerTimeout) { [self] in
            deadline = nil
            guard case .awaitingHead = phase else { return }
            door.timedOut("header")
            answerAndClose(context: context, APIError(.requestTimeout, code: "timeout",
                                                      "the request header did not arrive in time; send it whole"))
        }
    }

    /// The door needs this connection's place: it still has not sent a whole header.
    private func evict() {
        guard case .awaitingHead = phase, let context else { return }
        answerAndClose(context: context, APIError(.requestTimeout, code: "timeout",
                                                  "the box is full and this connection sent no request; send the request at once"))
    }

    private func finish() {
        deadline?.cancel()
        deadline = nil
        context = nil
        if let ticket {
            door.leave(ticket)
            self.ticket = nil
        }
    }

    /// Whether `buffer` ends the header: an empty line (LF, optional CR, LF) across reads.
    private func endsHeader(_ buffer: ByteBuffer) -> Bool {
        for byte in buffer.readableBytesView {
            if byte == UInt8(ascii: "\n") {
                if lastWasLineFeed { return true }
                lastWasLineFeed = true
            } else if byte != UInt8(ascii: "\r") {
                lastWasLineFeed = false
            }
        }
        return false
    }

    static func refusal(_ refusal: VisitorDoor.Refusal) -> APIError {
        var error: APIError
        switch refusal {
        case .full:
            error = APIError(.serviceUnavailable, code: "busy", "the box is serving as many connections as it can; try again in 5 s",
                             details: .object(["retryAfterSeconds": .number(5)]))
        case .client, .live:
            error = APIError(.tooManyRequests, code: "rate_limited",
                             "too many connections from this device; close some and try again in 5 s",
                             details: .object(["retryAfterSeconds": .number(5)]))
        }
        error.headers[.retryAfter] = "5"
        return error
    }

    /// `error` as a complete HTTP/1.1 response that closes the connection.
    static func rawResponse(_ error: APIError) -> ByteBuffer {
        let body = error.body()
        var text = "HTTP/1.1 \(error.status.code) \(error.status.reasonPhrase)\r\n"
        for field in error.responseHeaders where field.name != .contentLength && field.name != .connection {
            // Title case, as the rest of the answer (header names are case-insensitive).
            let name = field.name.canonicalName.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
            text += "\(name): \(field.value)\r\n"
        }
        text += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var buffer = ByteBuffer(string: text)
        buffer.writeBytes(body)
        return buffer
    }
}

/// Sits after the HTTP decoder until the first request is read: a header the decoder
/// refuses (over the size limit, malformed) is answered `431`/`400` with the JSON error
/// and the connection closed, where it used to be left open with no answer. Removed once
/// the first request is handed on; later parse errors end the connection in Hummingbird's
/// handler.
final class HeadErrorAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        let answer: APIError
        switch parserError {
        case .headerOverflow:
            answer = APIError(.requestHeaderFieldsTooLarge, code: "header_too_large",
                              "the request header is larger than the box reads (80 KiB)")
        default:
            answer = APIError.badRequest("the request could not be read as HTTP/1.1")
        }
        BoxMetrics.countError(code: answer.code)
        let body = answer.body()
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: answer.status.code), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.close(promise: nil)
    }
}

/// Closes a connection whose request (header to end of body) takes longer than the request
/// deadline: a body trickled a byte at a time cannot hold a connection for ever (a body that
/// stops is closed sooner, by the idle timeout).
final class RequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let door: VisitorDoor
    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(door: VisitorDoor) {
        self.door = door
        self.timeout = TimeAmount(door.limits.requestTimeout)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            deadline?.cancel()
            deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
                deadline = nil
                door.timedOut("request")
                context.close(promise: nil)
            }
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }
}
