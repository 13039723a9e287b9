import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Hummingbird's `Application`, run without its date cache: an HTTP server that wakes only for
/// its connections.
///
/// `Application.run()` adds a service that reformats the `Date` header once a second
/// (`DateCache`, an `AsyncTimerSequence`), so every HTTP server kept an idle box awake once a
/// second (docs/performance.md, "Idle"). This runs the same server — `HTTPServerBuilder`'s
/// channel, the responder, the server name, the 500 for an unrecognised error — and formats the
/// `Date` header when a response needs it, at most once a second (``HTTPDate``).
struct HTTPApplication<Responder: HTTPResponder>: ApplicationProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder
    let server: HTTPServerBuilder
    let configuration: ApplicationConfiguration
    let logger: Logger
    let serverRunning: @Sendable (any Channel) async -> Void

    init<Builder: HTTPResponderBuilder>(router: Builder, server: HTTPServerBuilder, configuration: ApplicationConfiguration,
                                         onServerRunning: @escaping @Sendable (any Channel) async -> Void, logger: Logger)
    where Builder.Responder == Responder {
        self.responder = router.buildResponder()
        self.server = server
        self.configuration = configuration
        self.serverRunning = onServerRunning
        self.logger = logger
    }

    func onServerRunning(_ channel: any Channel) async { await serverRunning(channel) }

    /// A response body's write failed on the request's malformed rest: close the connection
    /// without another response (Hummingbird's `parseErrorWhileWritingResponse`).
    struct ParseErrorWhileWritingResponse: Error {}

    func run() async throws {
        let responder = self.responder
        let logger = self.logger
        let serverName = configuration.serverName
        let date = HTTPDate()
        let serverConfiguration = ServerConfiguration(
            address: configuration.address, serverName: serverName, backlog: configuration.backlog,
            reuseAddress: configuration.reuseAddress, availableConnectionsDelegate: configuration.availableConnectionsDelegate)
        let service = try server.buildServer(configuration: serverConfiguration, eventLoopGroup: eventLoopGroup,
                                             logger: logger) { request, responseWriter, channel in
            var requestLogger = logger
            requestLogger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
            let context = Responder.Context(source: .init(channel: channel, logger: requestLogger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                requestLogger.debug("Unrecognised Error", metadata: ["error.type": "\(error)"])
                response = Response(status: .internalServerError, body: .init())
            }
            response.headers[.date] = date.now()
            if let serverName { response.headers[.server] = serverName }
            do {
                try await responseWriter.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                throw ParseErrorWhileWritingResponse()
            }
        } onServerRunning: { channel in
            await self.onServerRunning(channel)
        }
        try await service.run()
    }
}
