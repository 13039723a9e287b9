import DriftCore
import DriftMedia
import DriftStore
import Foundation
import Hummingbird
import Logging

extension VisitorAPI {
    func addMediaRoutes(to api: RouterGroup<VisitorRequestContext>) {
        api.put("bottles/:id/image") { request, context -> Response in
            let (caller, bottle) = try await editableBottle(request, context)
            var request = request
            let bytes = try await RequestBodyReader.bytes(&request, limit: limits.imageBodyBytes)
            try limit("uploads", token: caller, rule: limits.createPerToken, client: context.clientAddress, clientRule: limits.createPerClient)
            let image = try checkedImage(bytes, path: { format in try MediaPath.content(bottle: bottle.id, fileName: "image.\(format.rawValue)") })
            try await write(bytes, to: image.path)
            var draft = BottleDraft(reproducing: bottle)
            draft.content.image = image
            return try await replaceContent(of: bottle, with: draft, by: caller)
        }

        api.put("bottles/:id/whisper") { request, context -> Response in
            let (caller, bottle) = try await editableBottle(request, context)
            var request = request
            let bytes = try await RequestBodyReader.bytes(&request, limit: limits.audioBodyBytes)
            try limit("uploads", token: caller, rule: limits.createPerToken, client: context.clientAddress, clientRule: limits.createPerClient)
            let audio = try checkedAudio(bytes, allowed: AudioRef.whisperDuration, field: "whisper") { format in
                try MediaPath.content(bottle: bottle.id, fileName: "whisper.\(Self.fileExtension(format))")
            }
            try await write(bytes, to: audio.path)
            var draft = BottleDraft(reproducing: bottle)
            draft.content.whisper = audio
            return try await replaceContent(of: bottle, with: draft, by: caller)
        }

        api.delete("bottles/:id/image") { request, context -> Response in
            let (caller, bottle) = try await editableBottle(request, context)
            var draft = BottleDraft(reproducing: bottle)
            draft.content.image = nil
            return try await replaceContent(of: bottle, with: draft, by: caller)
        }

        api.delete("bottles/:id/whisper") { request, context -> Response in
            let (caller, bottle) = try await editableBottle(request, context)
            var draft = BottleDraft(reproducing: bottle)
            draft.content.whisper = nil
            return try await replaceContent(of: bottle, with: draft, by: caller)
        }

        api.get("bottles/:id/image") { request, context -> Response in
            let bottle = try await viewableBottle(request, context)
            guard let image = bottle.content.image else { throw APIError.notFound("this bottle has no image") }
            return Self.file(try await read(image.path), contentType: image.format.mimeType)
        }

        api.get("bottles/:id/whisper") { request, context -> Response in
            let bottle = try await viewableBottle(request, context)
            guard let whisper = bottle.content.whisper else { throw APIError.notFound("this bottle has no whisper") }
            return Self.file(try await read(whisper.path), contentType: whisper.format.mimeType)
        }

        // A chat attachment waits for its message (the message takes the upload's id).
        api.post("bottles/:id/attachments") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            guard await hasOpened(bottle, by: caller) else { throw APIError.forbidden("open this bottle to chat in it") }
            guard bottle.state == .active || bottle.state == .dying else { throw APIError.conflict("this bottle's chat has ended") }
            var request = request
            let isAudio = (request.headers[.contentType] ?? "").lowercased().hasPrefix("audio/")
            let bytes = try await RequestBodyReader.bytes(&request, limit: isAudio ? limits.audioBodyBytes : limits.imageBodyBytes)
            try limit("uploads", token: caller, rule: limits.postPerToken, client: context.clientAddress, clientRule: limits.postPerClient)
            let at = now()
            let id = MessageID.make(at: at)
            let attachment: ChatAttachment
            let view: APIViews.Media
            let url = "/api/v1/bottles/\(bottle.id)/messages/\(id)/attachment"
            if isAudio {
                let audio = try checkedAudio(bytes, allowed: AudioRef.chatDuration, field: "attachment") { format in
                    try MediaPath.chat(bottle: bottle.id, message: id, fileName: "audio.\(Self.fileExtension(format))")
                }
                attachment = .audio(audio)
                view = APIViews.Media(audio: audio, url: url, kind: "audio")
            } else {
                let image = try checkedImage(bytes) { format in try MediaPath.chat(bottle: bottle.id, message: id, fileName: "image.\(format.rawValue)") }
                attachment = .image(image)
                view = APIViews.Media(image: image, url: url, kind: "image")
            }
            try await write(bytes, to: attachment.path)
            let who = processor.participant(caller, in: bottle.id)
            let dropped = attachments.stage(.init(bottle: bottle.id, participant: who, attachment: attachment,
                                                  expiresAt: at.addingTimeInterval(limits.attachmentLifetime)), as: id, now: at)
            await removeFiles(dropped.map(\.attachment.path))
            return try Self.json(APIViews.Attachment(attachment: id.description, media: view), status: .created)
        }

        api.get("bottles/:id/messages/:message/attachment") { request, context -> Response in
            let caller = try await visitor(request)
            let bottle = try await bottle(context.parameters.get("id"))
            let opened = await hasOpened(bottle, by: caller)
            guard bottle.isCreator(caller) || opened else {
                throw APIError.forbidden("open this bottle to see its chat")
            }
            guard let id = context.parameters.get("message").flatMap(MessageID.init),
                  let message = (try await processor.read { try $0.message(id) }), message.bottle == bottle.id, let attachment = message.attachment else {
                throw APIError.notFound("no such attachment")
            }
            let type = switch attachment {
            case .image(let image): image.format.mimeType
            case .audio(let audio): audio.format.mimeType
            }
            return Self.file(try await read(attachment.path), contentType: type)
        }
    }

    // MARK: - Checks

    /// The caller (creator) and the bottle, if they may still change it.
    func editableBottle(_ request: Request, _ context: VisitorRequestContext) async throws -> (TokenHash, Bottle) {
        let caller = try await visitor(request)
        let bottle = try await bottle(context.parameters.get("id"))
        try requireEditable(bottle, by: caller)
        return (caller, bottle)
    }

    /// The bottle, if the caller may see its content (creator, or opened it).
    func viewableBottle(_ request: Request, _ context: VisitorRequestContext) async throws -> Bottle {
        let caller = try await visitor(request)
        let bottle = try await bottle(context.parameters.get("id"))
        let live = bottle.state == .active || bottle.state == .dying
        let opened = live ? await hasOpened(bottle, by: caller) : false
        guard bottle.isCreator(caller) || opened else {
            throw APIError.forbidden("open this bottle to see what it holds")
        }
        return bottle
    }

    /// Checks an image by its content and the domain's limits.
    func checkedImage(_ bytes: [UInt8], path: (ImageRef.Format) throws -> MediaPath) throws -> ImageRef {
        guard !bytes.isEmpty else { throw APIError.invalid(field: "image", problem: "the upload is empty") }
        let info: ImageInfo
        do { info = try MediaProbe.image(bytes) } catch {
            throw Self.mediaError(error, field: "image")
        }
        let image = ImageRef(path: try path(info.format), format: info.format, byteCount: bytes.count, width: info.width, height: info.height)
        try image.validate()
        return image
    }

    /// Checks audio by its content: container, and the duration measured from it.
    func checkedAudio(_ bytes: [UInt8], allowed: ClosedRange<Double>, field: String, path: (AudioRef.Format) throws -> MediaPath) throws -> AudioRef {
        guard !bytes.isEmpty else { throw APIError.invalid(field: field, problem: "the upload is empty") }
        let info: AudioInfo
        do { info = try MediaProbe.audio(bytes) } catch {
            throw Self.mediaError(error, field: field)
        }
        let audio = AudioRef(path: try path(info.format), format: info.format, byteCount: bytes.count, durationSeconds: info.durationSeconds)
        do { try audio.validate(allowed: allowed, field: field) } catch {
            throw APIError.invalid(field: "\(field).duration", problem: "is \(String(format: "%.1f", info.durationSeconds)) s; \(error.problem)")
        }
        return audio
    }

    static func mediaError(_ error: MediaProbeError, field: String) -> APIError {
        switch error.code {
        case .unknownFormat:
            APIError(.unsupportedMediaType, code: "unsupported_media_type", "\(field): \(error.message)",
                     details: .object(["field": .string(field), "problem": .string(error.message)]))
        default:
            APIError.invalid(field: field, problem: error.message)
        }
    }

    static func fileExtension(_ format: AudioRef.Format) -> String {
        switch format {
        case .ogg: "ogg"
        case .webm: "webm"
        case .mp4: "m4a"
        case .mpeg: "mp3"
        case .wav: "wav"
        }
    }

    func write(_ bytes: [UInt8], to path: MediaPath) async throws {
        let media = media
        do { try await io.run { try media.write(bytes, to: path) } } catch {
            logger.error("cannot store media", metadata: ["path": "\(path)", "error": "\(error)"])
            throw APIError(.serviceUnavailable, code: "unavailable", "the box could not store the file (is its storage full?)")
        }
    }

    func read(_ path: MediaPath) async throws -> [UInt8] {
        let media = media
        do { return try await io.run { try media.read(path) } } catch {
            logger.error("cannot read media", metadata: ["path": "\(path)", "error": "\(error)"])
            throw APIError.notFound("the file is gone")
        }
    }

    /// Stores the edited content; files the edit no longer uses are removed.
    func replaceContent(of bottle: Bottle, with draft: BottleDraft, by caller: TokenHash) async throws -> Response {
        let edited = (try await processor.withStore { try $0.edit(bottle.id, with: draft, by: caller, now: now(), policy: policy) })
        await removeFiles(edited.unusedMedia)
        return try Self.json(await view(edited.bottle, for: caller, context: processor.context(at: now())))
    }
}
