import DriftCore
import DriftStore
import Foundation
import Hummingbird
import Logging

extension VisitorAPI {
    func addChatRoutes(to api: RouterGroup<VisitorRequestContext>) {
        api.get("bottles/:id/messages") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            let participants = (try await processor.read { try $0.participants(of: bottle.id) })
            let opened = await hasOpened(bottle, by: caller, participants: participants)
            guard bottle.isCreator(caller) || opened else {
                throw APIError.forbidden("open this bottle to read its chat")
            }
            var cursor: ChatCursor?
            if let before = request.uri.queryParameters.get("before") {
                do { cursor = try ChatCursor(encoded: before) } catch { throw APIError.badRequest("before: not a cursor from this chat") }
            }
            var limit = ChatTimeline.pageSize
            if let text = request.uri.queryParameters.get("limit") {
                guard let value = Int(text), (1...ChatTimeline.pageSize).contains(value) else {
                    throw APIError.badRequest("limit: must be 1–\(ChatTimeline.pageSize)")
                }
                limit = value
            }
            let (before, count) = (cursor, limit)
            let page = (try await processor.read { try $0.page(of: bottle.id, before: before, limit: count) })
            let viewer = ParticipantViewer(bottle: bottle, viewer: processor.participant(caller, in: bottle.id),
                                           processor: processor, participants: participants)
            // Newest first, as the document says (the timeline pages oldest → newest).
            let messages = page.messages.reversed().map {
                APIViews.Message($0, viewer: viewer, attachmentURL: "/api/v1/bottles/\(bottle.id)/messages/\($0.id)/attachment")
            }
            return try Self.json(APIViews.MessagePage(messages: messages, older: page.olderCursor?.encoded))
        }

        api.post("bottles/:id/messages") { request, context -> Response in
            let caller = try await visitor(request)
            var request = request
            let input = try await RequestBodyReader.json(APIInputs.Message.self, from: &request, limit: limits.jsonBodyBytes)
            let bottle = try await bottle(context.parameters.get("id"))
            let participants = (try await processor.read { try $0.participants(of: bottle.id) })
            guard await hasOpened(bottle, by: caller, participants: participants) else {
                throw APIError.forbidden("open this bottle to chat in it")
            }
            try limit("chat lines", token: caller, rule: limits.postPerToken, client: context.clientAddress, clientRule: limits.postPerClient)
            // Before an upload is taken: a refused line leaves it waiting.
            let text = try VisitorText.normalised(input.text, field: "text")
            let at = now()
            let who = processor.participant(caller, in: bottle.id)
            var id = MessageID.make(at: at)
            var attachment: ChatAttachment?
            if let staged = input.attachment {
                guard let stagedID = MessageID(staged), let found = attachments.take(stagedID, bottle: bottle.id, participant: who, now: at) else {
                    throw APIError.invalid(field: "attachment", problem: "no such upload waiting (uploads wait 10 minutes)")
                }
                id = stagedID
                attachment = found
            }
            let message = try ChatMessage.make(id: id, bottle: bottle.id, participant: who, sentAt: at,
                                               text: text, language: input.language, attachment: attachment)
            try await processor.post(message)
            let viewer = ParticipantViewer(bottle: bottle, viewer: who, processor: processor, participants: participants)
            let url = "/api/v1/bottles/\(bottle.id)/messages/\(id)/attachment"
            return try Self.json(APIViews.Message(message, viewer: viewer, attachmentURL: url), status: .created)
        }
    }
}
