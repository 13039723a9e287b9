import DriftConfig
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The visitor page, API and live sockets on `[http] listen`, as a service of the daemon.
///
/// Runs the Hummingbird application, the ``ChatHub`` and the ``CampNews`` together; stops both on graceful
/// shutdown (open WebSockets are closed by the server). `onListening` gets the bound
/// port once the socket listens (`--listen HOST:0` picks a free one; tests use that).
///
/// A listen address that cannot be bound (port taken, address missing) does not take the
/// box down: it is the `http` fault, logged and retried with back-off up to a minute,
/// while the buttons, LEDs and bottle rules keep running.
public struct VisitorServer: Service {
    let api: VisitorAPI
    let host: String
    let port: Int
    let logger: Logger
    let health: HealthRegistry?
    let onListening: @Sendable (Int) async -> Void

    public init(api: VisitorAPI, host: String, port: Int, logger: Logger, health: HealthRegistry? = nil,
                onListening: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.api = api
        self.host = host
        self.port = port
        self.logger = logger
        self.health = health
        self.onListening = onListening
    }

    public func run() async throws {
        // A component without a heartbeat: it only ever reports the listen fault.
        health?.register("http", maximumSilence: nil)
        let hub = api.hub
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await hub.run() }
            group.addTask { [api] in await api.campNews.run(listing: api.camps, clock: api.campClock) }
            group.addTask { try await serve() }
            // Serving returns on graceful shutdown; then the hub stops too.
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Runs the application; a failure to listen is retried until shutdown.
    private func serve() async throws {
        var delay = Duration.seconds(2)
        while !Task.isCancelled {
            do {
                try await makeApplication().run()
                return
            } catch is CancellationError {
                return
            } catch {
                let problem = "cannot listen on \(HostPort(host: host, port: port)): \(error)"
                logger.error("visitor page unavailable; retrying", metadata: ["error": "\(problem)", "retryIn": "\(delay)"])
                health?.setFault("http", problem)
            }
            let wait = delay
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            } catch {
                return
            }
            delay = min(delay * 2, .seconds(60))
        }
    }

    private func makeApplication() -> some ApplicationProtocol {
        let logger = logger
        let host = host
        let health = health
        let onListening = onListening
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .notice)
        return HTTPApplication(
            router: api.router(),
            server: HTTPServerBuilder { [api = self.api] responder in
                VisitorChannel(responder: responder, api: api,
                               webSocket: .init(maxFrameSize: VisitorAPI.maximumInboundMessage,
                                                autoPing: .enabled(timePeriod: api.door.limits.livePingInterval), validateUTF8: true))
            },
            configuration: .init(address: .hostname(host, port: port), serverName: "driftd"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                health?.setFault("http", nil)
                logger.notice("visitor page on http://\(HostPort(host: host, port: bound))/")
                await onListening(bound)
            },
            logger: serverLogger
        )
    }
}
