import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The visitor page, API and live sockets on `[http] listen`, as a service of the daemon.
///
/// Runs the Hummingbird application and the ``ChatHub`` together; stops both on graceful
/// shutdown (open WebSockets are closed by the server). `onListening` gets the bound
/// port once the socket listens (port 0 in the config picks a free one; tests use that).
public struct VisitorServer: Service {
    let api: VisitorAPI
    let host: String
    let port: Int
    let logger: Logger
    let onListening: @Sendable (Int) async -> Void

    public init(api: VisitorAPI, host: String, port: Int, logger: Logger, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.api = api
        self.host = host
        self.port = port
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        let logger = logger
        let host = host
        let onListening = onListening
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .notice)
        let app = Application(
            router: api.router(),
            server: .http1WebSocketUpgrade(webSocketRouter: api.webSocketRouter()),
            configuration: .init(address: .hostname(host, port: port), serverName: "driftd"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                let shown = host.contains(":") ? "[\(host)]" : host
                logger.notice("visitor page on http://\(shown):\(bound)/")
                await onListening(bound)
            },
            logger: serverLogger
        )
        let hub = api.hub
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await hub.run() }
            group.addTask { try await app.run() }
            // The application returns on graceful shutdown; then the hub stops too.
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
