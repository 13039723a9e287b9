import DriftCore
import DriftStore
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

extension VisitorAPI {
    /// Largest message a page may send on a live socket (typing notices are tiny).
    static let maximumInboundMessage = 4096

    func addLiveRoutes(to router: Router<VisitorRequestContext>) {
        // Chat of one bottle: being connected is being present.
        router.ws("api/v1/bottles/:id/live") { request, context in
            let caller = try visitor(request, allowQuery: true)
            let bottle = try bottle(context.parameters.get("id"))
            guard hasOpened(bottle, by: caller) else { throw APIError.forbidden("open this bottle to join its chat") }
            guard bottle.state == .active || bottle.state == .dying else { throw APIError.conflict("this bottle's chat has ended") }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let request = context.request
            guard let caller = try? visitor(request, allowQuery: true),
                  let bottle = try? bottle(context.requestContext.parameters.get("id")) else {
                try await outbound.close(.policyViolation, reason: "unauthorized")
                return
            }
            let who = processor.participant(caller, in: bottle.id)
            let connection: ChatHub.Connection
            let stream: AsyncStream<String>
            do {
                (connection, stream) = try await hub.join(bottle: bottle, participant: who)
            } catch {
                try await outbound.close(.goingAway, reason: "the chat has ended")
                return
            }
            await pump(stream, inbound: inbound, outbound: outbound, connection: connection)
        }

        // Box events for one visitor: bottles becoming openable, watches, presence proofs, creator notices.
        router.ws("api/v1/live") { request, _ in
            _ = try visitor(request, allowQuery: true)
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let caller = try? visitor(context.request, allowQuery: true) else {
                try await outbound.close(.policyViolation, reason: "unauthorized")
                return
            }
            let (connection, stream) = await hub.listen(visitor: caller)
            await pump(stream, inbound: inbound, outbound: outbound, connection: connection)
        }
    }

    /// Writes the hub's messages out and hands inbound text to the hub until either side ends.
    private func pump(_ stream: AsyncStream<String>, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
                      connection: ChatHub.Connection) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await line in stream {
                    do { try await outbound.write(.text(line)) } catch { return }
                }
                // The hub ended the stream (the bottle expired): close politely.
                try? await outbound.close(.normalClosure, reason: nil)
            }
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: Self.maximumInboundMessage) {
                        if case .text(let text) = message { await hub.received(text, on: connection) }
                    }
                } catch {}
            }
            await group.next()
            group.cancelAll()
        }
        await hub.disconnect(connection)
    }
}
