import DriftCore
import DriftStore
import Foundation
import Hummingbird

extension VisitorAPI {
    /// Read marks (unread counts) and the creator's notification switches.
    func addReadRoutes(to api: RouterGroup<VisitorRequestContext>) {
        // The caller has seen the chat's lines up to now (their unread count drops to 0).
        api.post("bottles/:id/read") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            let opened = await hasOpened(bottle, by: caller)
            guard bottle.isCreator(caller) || opened else {
                throw APIError.forbidden("open this bottle to read its chat")
            }
            let at = now()
            try await processor.withStore { try $0.markRead(bottle.id, by: caller, at: at) }
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }

        // Which notices the creator gets about this bottle (first open, joins, lines while away).
        api.get("bottles/:id/notifications") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            guard bottle.isCreator(caller) else { throw APIError.forbidden("only the bottle's creator has notification choices") }
            let id = bottle.id
            return try Self.json(APIViews.Notifications(try await processor.read { try $0.preferences(of: id) }))
        }

        api.put("bottles/:id/notifications") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            var request = request
            let input = try await RequestBodyReader.json(APIViews.Notifications.self, from: &request, limit: limits.jsonBodyBytes)
            guard bottle.isCreator(caller) else { throw APIError.forbidden("only the bottle's creator has notification choices") }
            try limit("bottle changes", token: caller, rule: limits.actionPerToken, client: nil)
            let id = bottle.id
            try await processor.withStore { try $0.setPreferences(input.preferences, for: id, by: caller) }
            return try Self.json(input)
        }
    }

    /// `views` (the caller's bottles or watches) with their unread line counts (bottles whose
    /// chat the caller sees) and, for the caller's own, their notification switches.
    func withReadFacts(_ views: [APIViews.Bottle], for caller: TokenHash) async -> [APIViews.Bottle] {
        let chats = views.compactMap { view in view.chat == nil ? nil : BottleID(view.id) }
        let mine = views.filter(\.isMine).compactMap { BottleID($0.id) }
        let me = Dictionary(uniqueKeysWithValues: chats.map { ($0, processor.participant(caller, in: $0)) })
        let facts = try? await processor.read { store in
            (unread: try store.unreadCounts(in: chats, by: caller, me: me),
             preferences: Dictionary(uniqueKeysWithValues: try mine.map { ($0, try store.preferences(of: $0)) }))
        }
        return views.map { view in
            var view = view
            guard let id = BottleID(view.id) else { return view }
            if view.chat != nil { view.unreadLines = facts?.unread[id] ?? 0 }
            if view.isMine, let preferences = facts?.preferences[id] { view.notifications = APIViews.Notifications(preferences) }
            return view
        }
    }
}
