import DriftCore
import DriftMesh
import DriftStore
import Foundation
import Hummingbird

/// The visitor API's mesh part: the box directory, bottles sent to other boxes, and chats
/// hosted on other boxes (`docs/mesh-bottles.md`, `docs/api.md`).
extension VisitorAPI {
    /// A bottle sent from here, as its creator sees it.
    struct SentView: Codable, Sendable {
        var id: String
        var shareCode: String?
        var placement: String
        var destination: String
        var destinationNode: String
        /// `travelling` until the destination confirms, then `delivered`.
        var state: String
        var sentAt: String
        var deliveredAt: String?
        var expiresAt: String
    }

    struct BoxView: Codable, Sendable {
        var node: String
        var name: String
        var latitude: Double?
        var longitude: Double?
        var country: String?
        var distanceMeters: Double?
        var lastSeen: String
    }

    struct RemoteChatView: Codable, Sendable {
        var bottle: String
        var host: String
        var hostNode: String
        var hint: String
        var expiresAt: String
        /// Joining from here needs the bottle's password (sealed to the host, checked there).
        var needsPassword: Bool
    }

    struct RemoteLineView: Codable, Sendable {
        var id: String
        var participant: String
        var label: String
        var isMe: Bool
        var text: String
        var sentAt: String
        var language: String
    }

    /// Where this visitor stands with the host: `none` (never joined from here), `pending`
    /// until the host's answer comes, then `admitted` or `refused`.
    struct AdmissionView: Codable, Sendable {
        var state: String
        var reason: String?
        var retryAfterSeconds: Int?

        init(_ join: MeshBottleState.JoinState) {
            switch join {
            case .notJoined: state = "none"
            case .pending: state = "pending"
            case .answered(.admitted): state = "admitted"
            case .answered(.refused(let refusal)):
                state = "refused"
                reason = refusal.reason
                if case .tooManyAttempts(let seconds) = refusal { retryAfterSeconds = seconds }
            }
        }

        var json: JSONValue {
            var object: [String: JSONValue] = ["state": .string(state)]
            if let reason { object["reason"] = .string(reason) }
            if let retryAfterSeconds { object["retryAfterSeconds"] = .number(Double(retryAfterSeconds)) }
            return .object(object)
        }
    }

    struct RemoteLinesView: Codable, Sendable {
        var lines: [RemoteLineView]
        var admission: AdmissionView
    }

    struct JoinInput: Codable, Sendable {
        var password: String?
    }

    /// Where a bottle sent from here went.
    struct TravelledView: Codable, Sendable {
        var id: String
        var shareCode: String
        var destination: String
        var expiresAt: String
    }

    struct LineInput: Codable, Sendable {
        var text: String
        /// The line's language tag (BCP 47); `und` when absent.
        var language: String?
    }

    func requireMesh() throws -> MeshBottleService {
        guard let meshBottles else {
            throw APIError.invalid(field: "placement", problem: "this box has no mesh (features.mesh is off or no radio works)")
        }
        return meshBottles
    }

    /// Creates the bottle and hands it to the mesh; nothing of its content stays in this box's bottles.
    /// Everything that could refuse it is checked (on the stand-in hash) before its password is hashed.
    func sendOverMesh(_ checked: CheckedDraft, to destination: MeshBottleService.Destination, origin: BottleOrigin,
                      creator: TokenHash, at: Date) async throws -> Response {
        let mesh = try requireMesh()
        var generator = SystemRandomNumberGenerator()
        let box: MeshBox
        do { box = try await mesh.resolve(destination, using: &generator) } catch let error as MeshBottleService.PlacementError {
            throw APIError.invalid(field: error.field, problem: error.description)
        }
        let placement: Placement = destination == .drift ? .drift : .manual(target: (try? BoxID(String(box.name.filter { $0.isLetter || $0.isNumber || $0 == "-" }.prefix(64)))) ?? origin.boxID)
        var draft = checked.draft
        draft.placement = placement
        let preview = try Self.travellingBottle(draft, id: BottleID.make(at: at), shareCode: ShareCode.random(), at: at, origin: origin,
                                                creator: creator, policy: policy)
        do { try await mesh.checkTravel(preview, to: box) } catch let error as MeshBottleService.PlacementError {
            throw APIError.invalid(field: error.field, problem: error.description)
        }
        draft = try await checked.hashed(on: processor.passwordHashing)
        draft.placement = placement
        let bottle = try Self.travellingBottle(draft, id: preview.id, shareCode: preview.shareCode, at: at, origin: origin,
                                               creator: creator, policy: policy)
        let sent: MeshSentBottle
        do { sent = try await mesh.send(bottle, to: box, at: at) } catch let error as MeshBottleService.PlacementError {
            throw APIError.invalid(field: error.field, problem: error.description)
        }
        return try Self.json(sentView(sent, shareCode: bottle.shareCode, placement: destination == .drift ? "drift" : "manual"), status: .accepted)
    }

    private static func travellingBottle(_ draft: BottleDraft, id: BottleID, shareCode: ShareCode, at: Date, origin: BottleOrigin,
                                         creator: TokenHash, policy: BottlePolicy) throws(APIError) -> Bottle {
        do throws(DomainValidationError) {
            return try Bottle.create(draft, id: id, shareCode: shareCode, origin: origin,
                                     creator: creator, now: at, policy: policy)
        } catch {
            throw APIError.invalid(field: error.field, problem: error.problem)
        }
    }

    func sentView(_ sent: MeshSentBottle, shareCode: ShareCode?, placement: String?) -> SentView {
        SentView(id: sent.bottle.description, shareCode: shareCode?.description, placement: placement ?? "manual",
                 destination: sent.destinationName, destinationNode: "\(sent.destination)",
                 state: sent.deliveredAt == nil ? "travelling" : "delivered", sentAt: APIJSON.iso(sent.sentAt),
                 deliveredAt: sent.deliveredAt.map(APIJSON.iso), expiresAt: APIJSON.iso(sent.expiresAt))
    }

    func addMeshRoutes(to api: RouterGroup<VisitorRequestContext>) {
        // The other boxes this box knows (for "send to a box").
        api.get("mesh/boxes") { request, _ -> Response in
            _ = try await visitor(request)
            let mesh = try requireMesh()
            let here = await processor.ambient.position(at: now(), settings: processor.settings)
            let boxes = (try await mesh.withStore { try $0.boxes() }).filter { $0.node != mesh.node.me }.map { box in
                BoxView(node: "\(box.node)", name: box.name, latitude: box.position?.latitude, longitude: box.position?.longitude,
                        country: box.country?.rawValue, distanceMeters: here.flatMap { mine in box.position.map { mine.distance(to: $0) } },
                        lastSeen: APIJSON.iso(box.lastSeen))
            }
            return try Self.json(["boxes": boxes])
        }

        // Bottles the caller sent to other boxes.
        api.get("mesh/sent") { request, _ -> Response in
            let caller = try await visitor(request)
            let mesh = try requireMesh()
            let sent = (try await mesh.withStore { try $0.sentBottles(by: caller) }).map { sentView($0, shareCode: nil, placement: nil) }
            return try Self.json(["bottles": sent])
        }

        // A bottle sent from this box to another, found by its share code (for visitors here
        // who were given the code): where it went. 404 for a code this box never sent.
        api.get("mesh/travelled/:code") { request, context -> Response in
            _ = try await visitor(request)
            let mesh = try requireMesh()
            let sent = try await travelled(mesh, context)
            return try Self.json(TravelledView(id: sent.bottle.description, shareCode: sent.shareCode.description,
                                               destination: sent.destinationName, expiresAt: APIJSON.iso(sent.expiresAt)))
        }

        // Watch such a bottle from here: this box hears (over the mesh) when it can be opened there.
        api.put("mesh/watches/:code") { request, context -> Response in
            let caller = try await visitor(request)
            let mesh = try requireMesh()
            try limit("watches", token: caller, rule: limits.actionPerToken, client: nil)
            let sent = try await travelled(mesh, context)
            guard try await mesh.watch(shareCode: sent.shareCode, by: caller, at: now()) != nil else {
                throw APIError.notFound("that bottle is gone")
            }
            return try Self.json(TravelledView(id: sent.bottle.description, shareCode: sent.shareCode.description,
                                               destination: sent.destinationName, expiresAt: APIJSON.iso(sent.expiresAt)),
                                 status: .accepted)
        }

        // Chats open on other boxes that a visitor here may join.
        api.get("mesh/chats") { request, _ -> Response in
            _ = try await visitor(request)
            let mesh = try requireMesh()
            let boxes = Dictionary((try await mesh.withStore { try $0.boxes() }).map { ($0.node, $0.name) }, uniquingKeysWith: { first, _ in first })
            let at = now()
            let chats = (try await mesh.withStore { try $0.remoteChats() }).filter { $0.expiresAt > at }.map { link in
                RemoteChatView(bottle: link.bottle.description, host: boxes[link.node] ?? "\(link.node)", hostNode: "\(link.node)",
                               hint: link.note, expiresAt: APIJSON.iso(link.expiresAt), needsPassword: link.hostKey != nil)
            }
            return try Self.json(["chats": chats])
        }

        api.post("mesh/chats/:id/join") { request, context -> Response in
            let caller = try await visitor(request)
            let mesh = try requireMesh()
            let id = try remoteChatID(context)
            var request = request
            let input = try await RequestBodyReader.json(JoinInput.self, from: &request, limit: limits.jsonBodyBytes, allowEmpty: true)
            try limit("chat actions", token: caller, rule: limits.actionPerToken, client: context.clientAddress)
            do {
                try await mesh.join(id, participant: processor.participant(caller, in: id), password: input.password)
            } catch let error as MeshBottleService.PlacementError {
                if error.field == "bottle" { throw APIError.notFound(error.description) }
                throw APIError.invalid(field: error.field, problem: error.description)
            }
            return Response(status: .accepted)
        }

        api.post("mesh/chats/:id/leave") { request, context -> Response in
            let caller = try await visitor(request)
            let mesh = try requireMesh()
            let id = try remoteChatID(context)
            try await sendRemote(mesh, .leave(id, participant: processor.participant(caller, in: id)))
            return Response(status: .accepted)
        }

        api.post("mesh/chats/:id/lines") { request, context -> Response in
            let caller = try await visitor(request)
            let mesh = try requireMesh()
            let id = try remoteChatID(context)
            var request = request
            let input = try await RequestBodyReader.json(LineInput.self, from: &request, limit: limits.jsonBodyBytes)
            try limit("chat lines", token: caller, rule: limits.postPerToken, client: context.clientAddress, clientRule: limits.postPerClient)
            // The same text rules as a chat line here: bidi overrides removed, invisible-only refused.
            let text = try VisitorText.normalised(input.text, field: "text").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { throw APIError.invalid(field: "text", problem: "is empty") }
            let me = processor.participant(caller, in: id)
            let message: ChatMessage
            do {
                message = try ChatMessage.make(id: MessageID.make(at: now()), bottle: id, participant: me,
                                               sentAt: now(), text: text, language: input.language ?? "und")
            } catch let error as DomainValidationError {
                throw APIError.invalid(field: error.field == "language" ? "language" : "text", problem: error.problem)
            }
            // The host said no: say why here instead of spending airtime on a line it drops.
            if case .answered(.refused(let refusal)) = mesh.joinState(me, in: id) {
                throw APIError(.forbidden, code: "not_admitted", refusal.reason)
            }
            try await sendRemote(mesh, .line(id, participant: me, language: message.language.rawValue, text: text))
            return Response(status: .accepted)
        }

        // The replica of a remote chat's lines, as the host relayed them: only for a visitor
        // here whom the host admitted. The host relays to this box, not to people, so the box
        // keeps the host's answer per visitor and shows the lines to nobody else (403
        // `not_admitted`, with where the caller stands in `details.admission`).
        api.get("mesh/chats/:id/lines") { request, context -> Response in
            let caller = try await visitor(request)
            let mesh = try requireMesh()
            let id = try remoteChatID(context)
            let me = processor.participant(caller, in: id)
            let join = mesh.joinState(me, in: id)
            guard join == .answered(.admitted) else {
                guard (try await mesh.withStore { try !$0.links(of: id, role: .host).isEmpty }) else {
                    throw APIError.notFound("no open chat with that id is known on the mesh")
                }
                let message = switch join {
                case .answered(.refused(let refusal)): "the box that hosts this chat said no: \(refusal.reason)"
                case .pending: "the box that hosts this chat has not answered the join yet"
                default: "join the chat first (POST /api/v1/mesh/chats/{id}/join)"
                }
                throw APIError(.forbidden, code: "not_admitted", message, details: .object(["admission": AdmissionView(join).json]))
            }
            // Erased by its host (or expired): the admission outlives the chat, the lines do not.
            let at = now()
            let hosted = try await mesh.withStore { store in
                try !store.isErased(id) && store.links(of: id, role: .host).contains { $0.expiresAt > at }
            }
            guard hosted else { throw APIError.notFound("that chat is gone: the box that hosted it erased it") }
            let lines = (try await mesh.withStore { try $0.remoteLines(of: id) }).map { line in
                RemoteLineView(id: line.id, participant: line.participant, label: line.label, isMe: line.participant == me.hex,
                               text: line.text, sentAt: APIJSON.iso(line.sentAt), language: line.language)
            }
            return try Self.json(RemoteLinesView(lines: lines, admission: AdmissionView(join)))
        }
    }

    private func travelled(_ mesh: MeshBottleService, _ context: VisitorRequestContext) async throws -> MeshSentBottle {
        guard let raw = context.parameters.get("code"), let code = try? ShareCode(parsing: raw),
              let sent = (try await mesh.withStore { try $0.sentBottle(shareCode: code) }), sent.expiresAt > now() else {
            throw APIError.notFound("no bottle with that code left this box")
        }
        return sent
    }

    private func remoteChatID(_ context: VisitorRequestContext) throws -> BottleID {
        guard let raw = context.parameters.get("id"), let id = BottleID(raw) else { throw APIError.notFound("no such chat") }
        return id
    }

    private func sendRemote(_ mesh: MeshBottleService, _ chat: BottleMeshWire.Chat) async throws {
        do { try await mesh.sendRemote(chat) } catch let error as MeshBottleService.PlacementError {
            if error.field == "bottle" { throw APIError.notFound(error.description) }
            throw APIError.invalid(field: error.field, problem: error.description)
        }
    }
}
