import DriftCore
import DriftStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

/// The visitor API (`/api/v1`), the page and the live WebSockets, as Hummingbird routers.
///
/// Routes only translate: they authenticate the device token, read and check the body,
/// call the ``BottleProcessor`` (which owns every rule) or the stores, and shape the answer
/// as `api/openapi.json` says. Errors go through ``APIErrorMiddleware``.
public struct VisitorAPI: Sendable {
    /// Facts about the box the page shows.
    public struct BoxFacts: Sendable {
        public var id: String
        public var name: String
        public var country: String?
        public var timeZone: TimeZone
        public var simulated: Bool
        public var weather: @Sendable () -> LatestReadings.Weather?

        public init(id: String, name: String, country: String?, timeZone: TimeZone, simulated: Bool,
                    weather: @escaping @Sendable () -> LatestReadings.Weather?) {
            self.id = id
            self.name = name
            self.country = country
            self.timeZone = timeZone
            self.simulated = simulated
            self.weather = weather
        }
    }

    let processor: BottleProcessor
    let visitors: VisitorStore
    let media: MediaStore
    let hub: ChatHub
    /// Bottles, chat and notices across boxes; `nil` without a mesh.
    let meshBottles: MeshBottleService?
    let box: BoxFacts
    let limits: APILimits
    let rateLimiter = RateLimiter()
    let logger: Logger
    let now: @Sendable () -> Date
    let policy = BottlePolicy()
    /// Token hashes known to be registered (saves a read per request; bounded).
    let knownTokens = TokenCache()
    let attachments = StagedAttachments()
    /// Who is connected, bounded by ``APILimits/door``.
    public let door: VisitorDoor
    /// Where the visitor store's SQLite calls and media file I/O run (they block).
    let io = BlockingLane(name: "visitor-io")
    /// The camp directory for `GET /api/v1/camps`; `nil`: no camp service (an empty list).
    public var camps: (@Sendable () async throws -> CampListing)?
    /// Camp news for box sockets (looks at ``camps`` while someone listens).
    let campNews = CampNews()
    /// What ``campNews`` sleeps on between looks (tests give a manual clock).
    public var campClock: any Clock<Duration> = ContinuousClock()

    public init(processor: BottleProcessor, visitors: VisitorStore, media: MediaStore, hub: ChatHub,
                meshBottles: MeshBottleService? = nil, box: BoxFacts,
                limits: APILimits = APILimits(), logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.processor = processor
        self.meshBottles = meshBottles
        self.visitors = visitors
        self.media = media
        self.hub = hub
        self.box = box
        self.limits = limits
        self.door = VisitorDoor(limits: limits.door, perClient: limits.perClient)
        self.logger = logger
        self.now = now
    }

    // MARK: - Routers

    /// The HTTP routes: API, OpenAPI document, the page, and the live routes' refusals (the
    /// WebSocket upgrade itself is ``VisitorChannel``'s).
    public func router() -> Router<VisitorRequestContext> {
        let router = Router(context: VisitorRequestContext.self)
        let routes = RouteMethods()
        router.add(middleware: APIErrorMiddleware(logger: logger, routes: routes))
        let api = router.group("api/v1")
        addVisitorRoutes(to: api)
        addBottleRoutes(to: api)
        addMediaRoutes(to: api)
        addChatRoutes(to: api)
        addReadRoutes(to: api)
        addMeshRoutes(to: api)
        addCampRoutes(to: api)
        addLiveRoutes(to: router)
        addPageRoutes(to: router)
        routes.set(router.routes)
        return router
    }

    // MARK: - Authentication

    /// The caller's token hash from `Authorization: Bearer …` (or `?token=` for WebSockets).
    func visitor(_ request: Request, allowQuery: Bool = false) async throws -> TokenHash {
        var encoded: String?
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { encoded = String(parts[1]).trimmingCharacters(in: .whitespaces) }
        } else if allowQuery {
            encoded = request.uri.queryParameters.get("token")
        }
        guard let encoded, let token = try? DeviceToken(encoded: encoded) else { throw APIError.unauthorized }
        let hash = token.hash
        if knownTokens.contains(hash) { return hash }
        let visitors = visitors
        guard try await io.run({ try visitors.isRegistered(hash) }) else {
            throw APIError(.unauthorized, code: "unauthorized", "this device token is not known to this box; get a new one from POST /api/v1/visitors")
        }
        knownTokens.insert(hash)
        return hash
    }

    /// Applies `rule` to the caller's token and `clientRule` to their address.
    func limit(_ what: String, token: TokenHash?, rule: RateLimiter.Rule, client: String?, clientRule: RateLimiter.Rule? = nil) throws {
        let instant = now()
        if let token, let wait = rateLimiter.admit("\(what):t:\(token.hex)", rule: rule, now: instant) {
            throw APIError.rateLimited(what, retryAfter: wait)
        }
        if limits.perClient, let client, let clientRule, let wait = rateLimiter.admit("\(what):c:\(client)", rule: clientRule, now: instant) {
            throw APIError.rateLimited(what, retryAfter: wait)
        }
    }

    // MARK: - Bottles

    /// A live bottle by id or share code (expired ones are gone: 404).
    func bottle(_ reference: String?) async throws -> Bottle {
        // Path parameters arrive percent-encoded: a share code typed with a space is `%20`.
        guard let raw = reference, !raw.isEmpty, raw.utf8.count <= 64 else { throw APIError.notFound() }
        let reference = raw.removingPercentEncoding ?? raw
        var found: Bottle?
        if let id = BottleID(reference) {
            found = (try await processor.read { try $0.bottle(id) })
        } else if let code = try? ShareCode(parsing: reference) {
            found = (try await processor.read { try $0.bottle(shareCode: code) })
        }
        guard let bottle = found, bottle.state != .expired else { throw APIError.notFound() }
        return bottle
    }

    /// Whether `visitor` has opened `bottle` (is one of its chat's participants).
    func hasOpened(_ bottle: Bottle, by visitor: TokenHash, participants: [StoredParticipant]? = nil) async -> Bool {
        let who = processor.participant(visitor, in: bottle.id)
        if bottle.firstOpener == who { return true }
        var list = participants ?? []
        if participants == nil {
            let id = bottle.id
            list = (try? await processor.read { try $0.participants(of: id) }) ?? []
        }
        return list.contains { $0.participant == who }
    }

    /// What ``view(_:for:context:watched:evaluation:facts:)`` would otherwise ask the store, the
    /// processor and the hub for each bottle, fetched once for a whole list: a list of 300
    /// opened bottles was ~1,000 hops to the processor's thread, each queued behind its
    /// fsync'd writes (the festival benchmark's p99 of GET /api/v1/bottles was 3.3 s).
    struct ListFacts: Sendable {
        var participants: [BottleID: [StoredParticipant]] = [:]
        var lines: [BottleID: Int] = [:]
        var survivals: [BottleID: ChatSurvival] = [:]
        var present: [BottleID: Set<ParticipantID>] = [:]
    }

    /// The ``ListFacts`` of `bottles` (only opened bottles have any).
    func listFacts(for bottles: [Bottle]) async -> ListFacts {
        let opened = bottles.filter { $0.state == .active || $0.state == .dying }.map(\.id)
        guard !opened.isEmpty else { return ListFacts() }
        let stored = try? await processor.read { store in
            (participants: try store.participants(ofEach: opened), lines: try store.messageCounts(in: opened))
        }
        return ListFacts(participants: stored?.participants ?? [:], lines: stored?.lines ?? [:],
                         survivals: await processor.survivals(of: opened), present: await hub.present(inEach: opened))
    }

    /// The bottle as `visitor` may see it.
    func view(_ bottle: Bottle, for visitor: TokenHash, context: AmbientContext, watched: Set<BottleID>? = nil,
              evaluation: BottleEvaluation? = nil, facts: ListFacts? = nil) async -> APIViews.Bottle {
        let isMine = bottle.isCreator(visitor)
        let opened = bottle.state == .active || bottle.state == .dying
        var participants: [StoredParticipant] = []
        if opened {
            if let facts {
                participants = facts.participants[bottle.id] ?? []
            } else {
                participants = (try? await processor.read { try $0.participants(of: bottle.id) }) ?? []
            }
        }
        let hasOpened = opened ? await hasOpened(bottle, by: visitor, participants: participants) : false
        let me = processor.participant(visitor, in: bottle.id)
        let isWatched: Bool
        if let watched {
            isWatched = watched.contains(bottle.id)
        } else {
            let id = bottle.id
            isWatched = ((try? await processor.read { try $0.watches(of: id) }) ?? []).contains { $0.watcher.matches(visitor) }
        }
        var conditions: [ConditionReport]
        switch bottle.state {
        case .locked, .openable: conditions = (evaluation ?? ConditionEvaluator.evaluate(bottle, in: context)).reports
        default:
            // Open already: what a newcomer must still prove to join, then expiry.
            conditions = bottle.conditions.filter { !$0.condition.kind.isAmbient }.map { entry in
                var summary = "needs a password"
                if case .presence(let presence) = entry.condition { summary = ConditionEvaluator.presenceSummary(presence) }
                let outcome: ConditionOutcome = hasOpened || isMine ? .satisfied : .unknown(reason: "asked when you join")
                return ConditionReport(kind: entry.condition.kind, summary: summary, outcome: outcome, hint: entry.hint)
            }
            conditions.append(ConditionEvaluator.expiryReport(bottle, in: context))
        }
        // Hints of visitor proofs (their reports come from the opener, not the ambient pass).
        for index in conditions.indices where conditions[index].hint == nil {
            conditions[index].hint = bottle.conditions.first { $0.condition.kind == conditions[index].kind }?.hint
        }
        var content: APIViews.Content?
        if isMine || hasOpened {
            let base = "/api/v1/bottles/\(bottle.id)"
            content = APIViews.Content(
                text: bottle.content.text,
                image: bottle.content.image.map { APIViews.Media(image: $0, url: base + "/image") },
                whisper: bottle.content.whisper.map { APIViews.Media(audio: $0, url: base + "/whisper") })
        }
        var chat: APIViews.Chat?
        let survival: ChatSurvival?
        if let facts { survival = facts.survivals[bottle.id] } else { survival = opened ? await processor.survival(of: bottle.id) : nil }
        if opened, hasOpened || isMine, let survival {
            let viewer = ParticipantViewer(bottle: bottle, viewer: me, processor: processor, participants: participants)
            let present: Set<ParticipantID>
            let lines: Int
            if let facts {
                (present, lines) = (facts.present[bottle.id] ?? [], facts.lines[bottle.id] ?? 0)
            } else {
                present = await hub.present(in: bottle.id)
                lines = (try? await processor.read { try $0.messageCount(in: bottle.id) }) ?? 0
            }
            var deadline: Date?
            if case .countingDown(let end) = survival.phase { deadline = end }
            chat = APIViews.Chat(
                state: bottle.state.rawValue, deadline: deadline, keeper: survival.keeper.map { viewer.view($0.participant) },
                present: present.sorted().map(viewer.view), lines: lines, me: viewer.view(me))
        }
        return APIViews.Bottle(
            id: bottle.id.description, shareCode: bottle.shareCode.rawValue, state: bottle.state.rawValue,
            createdAt: bottle.createdAt, expiresAt: bottle.expiresAt, oneShot: bottle.isOneShot, hint: bottle.hint,
            isMine: isMine, hasOpened: hasOpened, isWatched: isWatched,
            hasImage: bottle.content.image != nil, hasWhisper: bottle.content.whisper != nil,
            conditions: conditions.map(APIViews.ConditionStatus.init), distanceTravelledMeters: bottle.distanceTravelledMeters,
            content: content, chat: chat, draft: isMine && bottle.firstOpenedAt == nil ? DraftInput(bottle) : nil)
    }

    // MARK: - Responses

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try APIJSON.data(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func file(_ bytes: [UInt8], contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "private, no-store",
                                        HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// Token hashes known to be registered; bounded (cleared past 50 000 entries).
final class TokenCache: Sendable {
    private let hashes = Mutex<Set<TokenHash>>([])

    func contains(_ hash: TokenHash) -> Bool { hashes.withLock { $0.contains(hash) } }

    func insert(_ hash: TokenHash) {
        hashes.withLock { known in
            if known.count > 50_000 { known.removeAll() }
            known.insert(hash)
        }
    }
}
