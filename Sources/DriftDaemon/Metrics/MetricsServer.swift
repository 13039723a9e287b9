import DriftConfig
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Serves `GET /metrics` (Prometheus text exposition) on `[metrics] listen`, normally a
/// localhost port (`features.metrics = true`). Gauges are refreshed on each scrape.
public struct MetricsServer: Service {
    let metrics: BoxMetrics
    let sources: BoxMetrics.Sources
    let host: String
    let port: Int
    let logger: Logger

    public init(metrics: BoxMetrics, sources: BoxMetrics.Sources, host: String, port: Int, logger: Logger) {
        self.metrics = metrics
        self.sources = sources
        self.host = host
        self.port = port
        self.logger = logger
    }

    public func run() async throws {
        let router = Router()
        let metrics = metrics
        let sources = sources
        router.get("metrics") { _, _ -> Response in
            await metrics.refresh(from: sources)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render())))
        }
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .notice)
        let logger = logger
        let host = host
        let app = HTTPApplication(
            router: router, server: .http1(), configuration: .init(address: .hostname(host, port: port), serverName: "driftd"),
            onServerRunning: { channel in
                logger.notice("metrics on http://\(HostPort(host: host, port: channel.localAddress?.port ?? 0))/metrics")
            },
            logger: quiet)
        try await app.run()
    }
}
