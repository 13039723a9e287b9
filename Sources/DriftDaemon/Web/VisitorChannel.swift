import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
@_spi(WSInternal) import WSCore

/// One connection to the visitor server: HTTP/1.1, upgraded to a WebSocket on the two
/// live routes when ``VisitorAPI/liveEndpoint(_:)`` admits the caller.
///
/// It follows HummingbirdWebSocket's `HTTP1WebSocketUpgradeChannel` (2.8), with the
/// differences the API's contract needs:
/// - a refused upgrade is not the library's fixed, empty `400`: it is answered with the
///   refusal itself — 401, 403, 404 or 409 with the JSON error body (a page must tell
///   "unknown token" from "not opened yet"), 400 for a path that has no WebSocket, 426 for a
///   handshake without a usable key or version — and the connection closes. (NIO's upgrade
///   handler does not pass a refused upgrade request on to HTTP; only the refusal recorded
///   here knows what was asked.)
/// - the admitted endpoint is handed to the socket as it was decided before the `101`;
/// - the frame limit (`maxFrameSize`) is the API's inbound message limit, so NIO's decoder
///   closes a socket with 1009 on any frame over it, and WSCore's message assembly
///   (`messages(maxSize:)`) on fragments adding up to more.
///
/// A GET of a live route without the upgrade headers is plain HTTP: the router's live routes
/// answer it (``VisitorAPI/addLiveRoutes(to:)``).
struct VisitorChannel: ServerChildChannel, HTTPChannelHandler {
    enum Negotiated: Sendable {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, VisitorAPI.LiveEndpoint)
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case refused(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, APIError, route: String)
    }

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
        /// The client whose live socket slot the upgrade took (given back when the
        /// connection ends, whatever became of the upgrade).
        let liveSlot: NIOLockedValueBox<String?>
    }

    /// The WebSocket's context (the handler needs only a logger).
    struct LiveContext: WebSocketContext {
        let logger: Logger
    }

    /// What became of a connection's upgrade request.
    enum Upgrade: Sendable {
        case none
        case admitted(VisitorAPI.LiveEndpoint)
        case refused(APIError, route: String)
    }

    /// Ends a connection after answering a request that asked for an upgrade it did not get.
    private struct UpgradeAnswered: Error {}

    let responder: HTTPChannelHandler.Responder
    let api: VisitorAPI
    let webSocket: WebSocketServerConfiguration
    let decoder = HTTP1Channel.Configuration.DecoderConfiguration()

    init(responder: @escaping HTTPChannelHandler.Responder, api: VisitorAPI, webSocket: WebSocketServerConfiguration) {
        self.api = api
        self.webSocket = webSocket
        // NIO's upgrade handler only looks at a connection's first request: a later one asking
        // for an upgrade gets the router's answer (426 on a live route), then the connection closes.
        self.responder = { request, writer, channel in
            let askedToUpgrade = request.headers[.upgrade] != nil
            try await responder(request, writer, channel)
            if askedToUpgrade { throw UpgradeAnswered() }
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let api = api
            let outcome = NIOLockedValueBox(Upgrade.none)
            let liveSlot = NIOLockedValueBox<String?>(nil)
            let client = channel.remoteAddress?.ipAddress ?? "unknown"
            // The door first, on raw bytes: connection caps and the first header's deadline.
            try channel.pipeline.syncOperations.addHandler(DoorGuard(door: api.door), position: .first)
            let headErrors = NIOLoopBound(HeadErrorAnswer(), eventLoop: channel.eventLoop)
            let webSocketUpgrader = NIOTypedWebSocketServerUpgrader<Negotiated>(
                maxFrameSize: webSocket.maxFrameSize,
                shouldUpgrade: { channel, head in
                    let promise = channel.eventLoop.makePromise(of: HTTPHeaders?.self)
                    promise.completeWithTask {
                        var decided = await Self.decide(head, api: api)
                        if case .admitted = decided {
                            if api.door.openLive(client: client) {
                                liveSlot.withLockedValue { $0 = client }
                            } else {
                                decided = .refused(DoorGuard.refusal(.live), route: String(head.uri.split(separator: "?").first ?? ""))
                            }
                        }
                        outcome.withLockedValue { [decided] in $0 = decided }
                        if case .admitted = decided { return HTTPHeaders() }
                        return nil
                    }
                    return promise.futureResult
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        channel.pipeline.syncOperations.removeHandler(headErrors.value, promise: nil)
                        guard case .admitted(let endpoint) = outcome.withLockedValue({ $0 }) else {
                            preconditionFailure("upgrading a connection that was not admitted")
                        }
                        let asyncChannel = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        return .webSocket(asyncChannel, endpoint)
                    }
                }
            )
            let upgrade = NIOTypedHTTPServerUpgradeConfiguration<Negotiated>(
                upgraders: [RecordingUpgrader(inner: webSocketUpgrader, outcome: outcome)],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        channel.pipeline.syncOperations.removeHandler(headErrors.value, promise: nil)
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandler(RequestDeadlineHandler(door: api.door))
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: api.door.limits.idleTimeout, logger: logger))
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        if case .refused(let error, let route) = outcome.withLockedValue({ $0 }) { return .refused(http, error, route: route) }
                        return .http(http)
                    }
                }
            )
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<Negotiated>(upgradeConfiguration: upgrade)
            configuration.enablePipelining = false  // HTTP is pipelined by NIOAsyncChannel
            configuration.enableErrorHandling = false  // handled by Hummingbird
            configuration.enableResponseHeaderValidation = false  // HTTPTypes validates
            configuration.decoderConfiguration.maxHeaderFieldSize = decoder.maxHeaderFieldSize
            configuration.decoderConfiguration.maxHeaderListSize = decoder.maxHeaderListSize
            configuration.decoderConfiguration.maxHeaderFieldCount = decoder.maxHeaderFieldCount
            let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            // Until the first request is read: a header the decoder refuses gets an answer.
            try channel.pipeline.syncOperations.addHandler(headErrors.value)
            return Value(negotiated: negotiated, channel: channel, liveSlot: liveSlot)
        }
    }

    /// Admission of an upgrade request (the refusals are the live routes' own).
    static func decide(_ head: HTTPRequestHead, api: VisitorAPI) async -> Upgrade {
        let route = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
        do {
            let request = Request(head: try HTTPRequest(head, secure: false, splitCookie: false), body: .init(buffer: .init()))
            guard let endpoint = try await api.liveEndpoint(request) else {
                return .refused(.badRequest("there is no WebSocket at \(route); the live routes are /api/v1/live and /api/v1/bottles/{id}/live"),
                                route: "unmatched")
            }
            return .admitted(endpoint)
        } catch let error as APIError {
            return .refused(error, route: route)
        } catch {
            return .refused(.badRequest("the upgrade request could not be read"), route: "unmatched")
        }
    }

    func handle(value: Value, logger: Logger) async {
        defer {
            if let client = value.liveSlot.withLockedValue({ slot in defer { slot = nil }; return slot }) {
                api.door.closeLive(client: client)
            }
        }
        do {
            switch try await value.negotiated.get() {
            case .http(let asyncChannel):
                await handleHTTP(asyncChannel: asyncChannel, logger: logger)
            case .refused(let asyncChannel, let error, let route):
                try await Self.answer(error, on: asyncChannel, route: route)
            case .webSocket(let asyncChannel, let endpoint):
                let api = api
                _ = try await WebSocketHandler.handle(
                    type: .server,
                    configuration: .init(extensions: [], autoPing: webSocket.autoPing, closeTimeout: webSocket.closeTimeout,
                                         validateUTF8: webSocket.validateUTF8, maxFrameSize: webSocket.maxFrameSize),
                    asyncChannel: asyncChannel, context: LiveContext(logger: logger)
                ) { inbound, outbound, _ in
                    try await api.serve(endpoint, inbound: inbound, outbound: outbound)
                }
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("connection closed during the upgrade")
        } catch {
            logger.debug("visitor connection ended", metadata: ["error": "\(error)"])
        }
    }

    /// Writes a refused upgrade's answer and closes the connection.
    static func answer(_ error: APIError, on asyncChannel: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, route: String) async throws {
        BoxMetrics.countRequest(method: "GET", route: route.hasPrefix("/api/v1/bottles/") ? "/api/v1/bottles/{id}/live" : route, status: error.status.code)
        BoxMetrics.countError(code: error.code)
        let body = error.body()
        var headers = error.responseHeaders
        headers[.connection] = "close"
        headers[.contentLength] = "\(body.count)"
        try await asyncChannel.executeThenClose { _, outbound in
            try await outbound.write(contentsOf: [
                .head(HTTPResponse(status: error.status, headerFields: headers)),
                .body(ByteBuffer(bytes: body)),
                .end(nil),
            ])
        }
    }
}

/// The WebSocket upgrader, recording a handshake it could not even consider (no key, a
/// version other than 13) so the connection can say so instead of waiting for a request
/// NIO will not pass on.
private struct RecordingUpgrader: NIOTypedHTTPServerProtocolUpgrader {
    typealias UpgradeResult = VisitorChannel.Negotiated
    let inner: NIOTypedWebSocketServerUpgrader<VisitorChannel.Negotiated>
    let outcome: NIOLockedValueBox<VisitorChannel.Upgrade>

    var supportedProtocol: String { inner.supportedProtocol }
    var requiredUpgradeHeaders: [String] { inner.requiredUpgradeHeaders }

    func buildUpgradeResponse(channel: any Channel, upgradeRequest: HTTPRequestHead,
                              initialResponseHeaders: HTTPHeaders) -> EventLoopFuture<HTTPHeaders> {
        let outcome = outcome
        return inner.buildUpgradeResponse(channel: channel, upgradeRequest: upgradeRequest, initialResponseHeaders: initialResponseHeaders)
            .flatMapErrorThrowing { error in
                outcome.withLockedValue { decided in
                    if case .none = decided {
                        var refusal = APIError.upgradeRequired
                        refusal.message = "a WebSocket handshake needs Sec-WebSocket-Key and Sec-WebSocket-Version: 13"
                        decided = .refused(refusal, route: "unmatched")
                    }
                }
                throw error
            }
    }

    func upgrade(channel: any Channel, upgradeRequest: HTTPRequestHead) -> EventLoopFuture<UpgradeResult> {
        inner.upgrade(channel: channel, upgradeRequest: upgradeRequest)
    }
}
