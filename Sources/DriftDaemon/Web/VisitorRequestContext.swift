import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// The request context of the visitor API: Hummingbird's core storage, the WebSocket
/// upgrade slot, and the client's address (for per-client rate limits).
public struct VisitorRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    /// The client's IP address ("unknown" when the channel has none, e.g. in-process tests).
    public let clientAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Bodies are read by the routes with their own limits (``RequestBodyReader``).
    public var maxUploadSize: Int { 64 * 1024 }
}
