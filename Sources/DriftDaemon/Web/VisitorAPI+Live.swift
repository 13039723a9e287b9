import DriftCore
import DriftStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

extension VisitorAPI {
    /// Largest message a page may send on a live socket (typing notices are tiny). Larger
    /// frames, and fragments adding up to more, close the socket with 1009.
    public static let maximumInboundMessage = 4096

    /// A live socket the caller was admitted to, decided before the upgrade.
    enum LiveEndpoint: Sendable {
        /// A bottle's chat (`/api/v1/bottles/{id}/live`).
        case chat(TokenHash, Bottle)
        /// The box's events for one visitor (`/api/v1/live`).
        case box(TokenHash)
    }

    /// Who may join a bottle's live chat: a known token (401), a live bottle (404) the caller
    /// opened (403) whose chat has not ended (409).
    func chatAdmission(_ request: Request, bottle reference: String?) async throws -> (TokenHash, Bottle) {
        let caller = try await visitor(request, allowQuery: true)
        let bottle = try await bottle(reference)
        guard await hasOpened(bottle, by: caller) else { throw APIError.forbidden("open this bottle to join its chat") }
        guard bottle.state == .active || bottle.state == .dying else { throw APIError.conflict("this bottle's chat has ended") }
        return (caller, bottle)
    }

    /// The live socket `request` asks for, if its caller may have it (see ``VisitorChannel``);
    /// `nil` for any other path. Throws the refusal the HTTP live routes answer with.
    func liveEndpoint(_ request: Request) async throws -> LiveEndpoint? {
        let parts = request.uri.path.split(separator: "/")
        guard parts.count >= 3, parts[0] == "api", parts[1] == "v1" else { return nil }
        if parts.count == 3, parts[2] == "live" {
            return .box(try await visitor(request, allowQuery: true))
        }
        if parts.count == 5, parts[2] == "bottles", parts[4] == "live" {
            let reference = String(parts[3])
            let (caller, bottle) = try await chatAdmission(request, bottle: reference.removingPercentEncoding ?? reference)
            return .chat(caller, bottle)
        }
        return nil
    }

    /// The live routes as plain HTTP: a WebSocket upgrade that was refused arrives here (and
    /// gets its 401/403/404/409), and so does a GET without the upgrade (426).
    func addLiveRoutes(to router: Router<VisitorRequestContext>) {
        router.get("api/v1/bottles/:id/live") { request, context -> Response in
            _ = try await chatAdmission(request, bottle: context.parameters.get("id"))
            throw APIError.upgradeRequired
        }
        router.get("api/v1/live") { request, _ -> Response in
            _ = try await visitor(request, allowQuery: true)
            throw APIError.upgradeRequired
        }
    }

    /// Runs an admitted live socket until either side ends it. Being connected to a chat is
    /// being present (``ChatHub/join(bottle:participant:)``); a box socket also gets the camp
    /// news (``CampNews``). Throws what reading the socket throws (a message over the limit):
    /// the WebSocket handler closes with its code.
    func serve(_ endpoint: LiveEndpoint, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let connection: ChatHub.Connection
        let stream: AsyncStream<String>
        var news: (id: Int, events: AsyncStream<String>)?
        switch endpoint {
        case .chat(let caller, let bottle):
            do {
                (connection, stream) = try await hub.join(bottle: bottle, participant: processor.participant(caller, in: bottle.id))
            } catch {
                try await outbound.close(.goingAway, reason: "the chat has ended")
                return
            }
        case .box(let caller):
            // Listening to the news first: whatever the hub sends first comes after.
            news = campNews.listen()
            (connection, stream) = await hub.listen(visitor: caller)
        }
        defer { if let news { campNews.remove(news.id) } }
        do {
            try await pump(stream, also: news?.events, inbound: inbound, outbound: outbound, connection: connection)
        } catch {
            await hub.disconnect(connection)
            throw error
        }
        await hub.disconnect(connection)
    }

    /// Writes the hub's messages (and `also`'s) out and hands inbound text to the hub until
    /// either side ends. The hub ending its stream ends the socket; `also` ending does not.
    private func pump(_ stream: AsyncStream<String>, also: AsyncStream<String>?, inbound: WebSocketInboundStream,
                      outbound: WebSocketOutboundWriter, connection: ChatHub.Connection) async throws {
        let (merged, sink) = AsyncStream<String>.makeStream()
        let hubEnded = HubEnded()
        // Each task says whether it is one of the two whose end ends the socket.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await line in stream { sink.yield(line) }
                // Ended by the hub (the bottle expired), not by the group's cancellation.
                if !Task.isCancelled { hubEnded.set() }
                sink.finish()
                return false
            }
            if let also {
                group.addTask {
                    for await line in also { sink.yield(line) }
                    return false
                }
            }
            group.addTask {
                for await line in merged {
                    do { try await outbound.write(.text(line)) } catch { return true }
                }
                // The hub ended the stream (the bottle expired): close politely. Not when the
                // reading side ended first: that closes with its own code (1009 over the limit).
                // Asked of the hub's task, not of this one's cancellation: the group cancels its
                // tasks one after another, and the hub's task, cancelled first, can finish `merged`
                // before this task is marked (a 1009 went out as 1000, 1 run in 40 under load).
                guard hubEnded.isSet else { return true }
                try? await outbound.close(.normalClosure, reason: nil)
                return true
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: Self.maximumInboundMessage) {
                    if case .text(let text) = message { await hub.received(text, on: connection) }
                }
                return true
            }
            while let endsSocket = try await group.next() {
                if endsSocket { break }
            }
            sink.finish()
            group.cancelAll()
        }
    }
}

/// Whether the hub ended a live socket's stream by itself; shared by ``VisitorAPI``'s pump tasks.
private final class HubEnded: Sendable {
    private let flag = Mutex(false)

    func set() { flag.withLock { $0 = true } }

    var isSet: Bool { flag.withLock { $0 } }
}
