import DriftCore
import DriftStore
import Foundation
import Logging

/// The live side of the visitor API: who is connected to which chat, and what each page
/// hears. Being connected is being present — the hub tells the ``BottleProcessor`` when
/// a participant's first connection opens (`enter`) and their last one closes (`leave`),
/// so the chat survival rules run on real connections.
///
/// It listens to the ``DriftCore/EventBus`` and fans events out: chat lines, lifecycle
/// (dying, rescued, expired) and keeper changes to the bottle's chat connections; bottle,
/// watch, presence and creator notices to the visitors' box connections. Typing and
/// presence (join/leave) are its own. Every connection has a bounded outgoing queue;
/// a client that does not read loses the oldest messages, never the box its memory.
public actor ChatHub {
    /// One open WebSocket.
    public struct Connection: Sendable, Hashable {
        public let id: UUID
        public let bottle: BottleID?
    }

    private struct ChatClient {
        var participant: ParticipantID
        var continuation: AsyncStream<String>.Continuation
    }

    private struct BoxClient {
        var visitor: TokenHash
        var continuation: AsyncStream<String>.Continuation
    }

    private struct Room {
        var clients: [UUID: ChatClient] = [:]
        var typing = TypingState()
        var viewer: ParticipantViewer
        func connections(of participant: ParticipantID) -> Int {
            clients.values.filter { $0.participant == participant }.count
        }
    }

    let processor: BottleProcessor
    let events: EventBus
    let logger: Logger
    let now: @Sendable () -> Date
    let presenceGrace: TimeInterval
    /// Messages queued per connection before the oldest are dropped.
    let queueLimit: Int
    /// The latest weather reading, sent to box connections when it changes.
    let weather: @Sendable () -> APIViews.Weather?
    private var weatherSent: Date?

    private var rooms: [BottleID: Room] = [:]
    private var boxClients: [UUID: BoxClient] = [:]
    /// Participants who opened over HTTP and are present until this instant unless a
    /// live connection takes over.
    private var graces: [BottleID: [ParticipantID: Date]] = [:]
    private let clock: any Clock<Duration>
    private(set) var droppedMessages = 0
    /// Rung when something starts needing the once-a-second sweep (a typist, a grace period, a
    /// box connection waiting for weather); with none of them the sweep sleeps.
    private nonisolated let sweepNeeded = Doorbell()

    /// - Parameters:
    ///   - clock: what the typing and presence sweep sleeps on (once a second while a typist, a grace
    ///     period or a box connection needs it; otherwise it sleeps until one starts); `now` is the
    ///     wall clock the sweep compares against. Tests give both a manual clock.
    public init(processor: BottleProcessor, events: EventBus, logger: Logger, presenceGrace: TimeInterval = 20,
                queueLimit: Int = 256, weather: @escaping @Sendable () -> LatestReadings.Weather? = { nil },
                clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.clock = clock
        self.weather = {
            weather().map(APIViews.Weather.init)
        }
        self.processor = processor
        self.events = events
        self.logger = logger
        self.presenceGrace = presenceGrace
        self.queueLimit = queueLimit
        self.now = now
    }

    /// Listens to the event bus and runs typing and presence timers until cancelled.
    public func run() async {
        let stream = await events.subscribe()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [weak self] in
                for await event in stream {
                    guard let self else { return }
                    await self.handle(event)
                }
            }
            group.addTask { [weak self, clock, sweepNeeded] in
                while !Task.isCancelled {
                    guard let needed = await self?.needsSweep else { return }
                    if needed {
                        do { try await clock.sleep(for: .seconds(1)) } catch { return }
                    } else {
                        // Nobody typing, in a grace period or listening for weather: nothing to
                        // time, so no wake-up until something starts (an idle box sleeps), or an
                        // hour (on the same clock, so a test's clock sees the sweep asleep).
                        await sweepNeeded.wait(timeout: .seconds(3600), clock: clock)
                        continue
                    }
                    guard let self else { return }
                    await self.tick()
                }
            }
            await group.next()
            group.cancelAll()
        }
        for room in rooms.values { room.clients.values.forEach { $0.continuation.finish() } }
        boxClients.values.forEach { $0.continuation.finish() }
        rooms = [:]
        boxClients = [:]
    }

    // MARK: - Chat connections

    /// A participant's page connects to a chat. The first connection of a participant
    /// enters the chat (survival), and everyone else hears `presence join`.
    /// - Throws: what ``BottleProcessor/enter(_:in:at:)`` throws (the chat has ended).
    public func join(bottle: Bottle, participant: ParticipantID) async throws -> (Connection, AsyncStream<String>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(queueLimit))
        let isFirst = (rooms[bottle.id]?.connections(of: participant) ?? 0) == 0
        if isFirst {
            try await processor.enter(participant, in: bottle.id, at: now())
        }
        graces[bottle.id]?[participant] = nil
        let participants = (try? await processor.read { try $0.participants(of: bottle.id) }) ?? []
        let viewer = ParticipantViewer(bottle: bottle, viewer: nil, processor: processor, participants: participants)
        var room = rooms[bottle.id] ?? Room(viewer: viewer)
        room.viewer = viewer
        room.clients[id] = ChatClient(participant: participant, continuation: continuation)
        rooms[bottle.id] = room
        if isFirst {
            broadcast(to: bottle.id, except: participant) { viewer in
                .object(["type": .string("presence"), "event": .string("join"), "participant": Self.json(viewer.view(participant))])
            }
        }
        send(hello(bottle.id, for: participant, survival: await processor.survival(of: bottle.id)), to: continuation)
        return (Connection(id: id, bottle: bottle.id), stream)
    }

    /// A connection closed. The participant's last connection leaves the chat.
    public func disconnect(_ connection: Connection) async {
        if let bottle = connection.bottle {
            guard var room = rooms[bottle], let client = room.clients.removeValue(forKey: connection.id) else { return }
            client.continuation.finish()
            let participant = client.participant
            let isLast = room.connections(of: participant) == 0
            if isLast { room.typing.stopped(participant) }
            rooms[bottle] = room.clients.isEmpty ? nil : room
            if isLast {
                await processor.leave(participant, in: bottle, at: now())
                broadcast(to: bottle, except: participant) { viewer in
                    .object(["type": .string("presence"), "event": .string("leave"), "participant": Self.json(viewer.view(participant))])
                }
            }
        } else {
            boxClients.removeValue(forKey: connection.id)?.continuation.finish()
        }
    }

    /// Whether a typist, a grace period or a box connection needs the once-a-second sweep.
    var needsSweep: Bool {
        !boxClients.isEmpty || !graces.isEmpty || rooms.values.contains { $0.typing.nextExpiry != nil }
    }

    /// A message from a chat page: `{"type":"typing"}` or `{"type":"stopTyping"}`; others are ignored.
    public func received(_ text: String, on connection: Connection) {
        guard let bottle = connection.bottle, var room = rooms[bottle], let client = room.clients[connection.id],
              text.utf8.count <= 1024,
              let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let type = object["type"] as? String else { return }
        let before = room.typing.typing(at: now())
        switch type {
        case "typing": room.typing.typing(client.participant, at: now())
        case "stopTyping": room.typing.stopped(client.participant)
        default: return
        }
        rooms[bottle] = room
        if room.typing.typing(at: now()) != before { broadcastTyping(bottle) }
        if type == "typing" { sweepNeeded.ring() }
    }

    /// A visitor opened (or re-entered) over HTTP: they count as present for the grace
    /// period; if no live connection of theirs arrives by then, they leave.
    public func openedOverHTTP(_ participant: ParticipantID, in bottle: BottleID) {
        guard (rooms[bottle]?.connections(of: participant) ?? 0) == 0 else { return }
        graces[bottle, default: [:]][participant] = now().addingTimeInterval(presenceGrace)
        sweepNeeded.ring()
    }

    /// `keeper` claimed Keep Alive in a chat that was not dying (a rescue is announced by
    /// the processor's `rescued` event): everyone connected hears the new keeper.
    public func keeperClaimed(_ keeper: ParticipantID, in bottle: BottleID) {
        broadcastKeeper(keeper, in: bottle)
    }

    /// Participants with at least one live connection to `bottle`.
    public func present(in bottle: BottleID) -> Set<ParticipantID> {
        Set(rooms[bottle]?.clients.values.map(\.participant) ?? [])
    }

    /// ``present(in:)`` for several bottles in one call; bottles nobody is in are absent.
    public func present(inEach bottles: [BottleID]) -> [BottleID: Set<ParticipantID>] {
        var found: [BottleID: Set<ParticipantID>] = [:]
        for bottle in bottles where rooms[bottle] != nil { found[bottle] = present(in: bottle) }
        return found
    }

    /// Open connections (chat and box), for status and benchmarks.
    public var connectionCount: Int {
        rooms.values.reduce(0) { $0 + $1.clients.count } + boxClients.count
    }

    // MARK: - Box connections

    /// A visitor's page listens for box events (`/api/v1/live`). It gets the latest weather at
    /// once (a page that reconnects would otherwise wait for the next reading), then changes.
    public func listen(visitor: TokenHash) -> (Connection, AsyncStream<String>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(queueLimit))
        boxClients[id] = BoxClient(visitor: visitor, continuation: continuation)
        sweepNeeded.ring()
        if let reading = weather() { send(Self.weatherLine(reading), to: continuation) }
        return (Connection(id: id, bottle: nil), stream)
    }

    /// Sends `weather` to every box connection.
    func weatherChanged(_ weather: APIViews.Weather) {
        let line = Self.weatherLine(weather)
        for client in boxClients.values { send(line, to: client.continuation) }
    }

    static func weatherLine(_ weather: APIViews.Weather) -> String {
        JSONValue.object(["type": .string("weather"), "weather": Self.json(weather)]).text
    }

    // MARK: - Events

    func handle(_ event: DriftEvent) async {
        let bottle = event.bottle
        switch event.kind {
        case .linePosted(let id, _):
            // The line just posted is in memory: no read that would queue behind the visitors' reads.
            guard rooms[bottle] != nil else { return }
            var found = processor.recentLines.line(id)
            if found == nil { found = try? await processor.read { try $0.message(id) } }
            guard let message = found else { return }
            let url = "/api/v1/bottles/\(bottle)/messages/\(id)/attachment"
            let wasTyping = rooms[bottle]?.typing.typing(at: now()).contains(message.participant) ?? false
            rooms[bottle]?.typing.stopped(message.participant)
            // Two renderings: the author's (isMe) and everyone else's — not one per participant,
            // so a line reaches a crowded chat at the cost of two encodings.
            if let room = rooms[bottle] {
                let render = { (viewer: ParticipantViewer) -> String in
                    JSONValue.object(["type": .string("message"),
                                      "message": Self.json(APIViews.Message(message, viewer: viewer, attachmentURL: url))]).text
                }
                let forAuthor = render(room.viewer.viewing(as: message.participant))
                let forOthers = render(room.viewer.viewing(as: nil))
                for client in room.clients.values {
                    send(client.participant == message.participant ? forAuthor : forOthers, to: client.continuation)
                }
            }
            if wasTyping { broadcastTyping(bottle) }
        case .dying(let deadline):
            broadcast(to: bottle, except: nil) { _ in
                .object(["type": .string("lifecycle"), "state": .string("dying"), "deadline": .string(APIJSON.iso(deadline))])
            }
            // Nobody is inside a dying chat: pages that list it (its creator, its other
            // participants) hear it on their box socket.
            notifyBox(.object(["type": .string("bottle"), "bottle": .string(bottle.description), "event": .string("dying"),
                               "deadline": .string(APIJSON.iso(deadline))]))
        case .rescued(let keeper):
            broadcastKeeper(keeper, in: bottle)
            broadcast(to: bottle, except: nil) { _ in .object(["type": .string("lifecycle"), "state": .string("active")]) }
            notifyBox(.object(["type": .string("bottle"), "bottle": .string(bottle.description), "event": .string("active")]))
        case .expired(let reason):
            broadcast(to: bottle, except: nil) { _ in
                .object(["type": .string("lifecycle"), "state": .string("expired"), "reason": .string(reason.rawValue)])
            }
            if let room = rooms.removeValue(forKey: bottle) {
                room.clients.values.forEach { $0.continuation.finish() }
            }
            graces[bottle] = nil
            notifyBox(.object(["type": .string("bottle"), "bottle": .string(bottle.description), "event": .string("expired")]))
        case .becameOpenable:
            notifyBox(.object(["type": .string("bottle"), "bottle": .string(bottle.description), "event": .string("openable")]))
            // Watchers here of a bottle hosted here, and of one hosted on another box (its notice came over the mesh).
            let (local, remote, sent) = await processor.withStore { store in
                let mesh = MeshBottleStore(database: store.database)
                let remote = (try? mesh.remoteWatchers(of: bottle)) ?? []
                return ((try? store.watches(of: bottle)) ?? [], remote, remote.isEmpty ? nil : (try? mesh.sentBottle(bottle)) ?? nil)
            }
            let watchers = Set(local.map(\.watcher) + remote)
            if !watchers.isEmpty {
                var body: [String: JSONValue] = ["type": .string("watch"), "bottle": .string(bottle.description), "event": .string("openable")]
                if let sent { body["at"] = .string(sent.destinationName) }
                notifyBox(.object(body)) { watchers.contains($0) }
            }
        case .locked:
            notifyBox(.object(["type": .string("bottle"), "bottle": .string(bottle.description), "event": .string("locked")]))
        case .presenceProved(let visitor):
            // The proof counts for the bottle's presence condition's window from the press.
            let conditions = (try? await processor.read { try $0.bottle(bottle) })?.conditions ?? []
            let window = conditions.lazy.compactMap { entry -> Int? in
                if case .presence(let presence) = entry.condition { return presence.withinSeconds }
                return nil
            }.first ?? PresenceCondition().withinSeconds
            notifyBox(.object(["type": .string("presence"), "bottle": .string(bottle.description), "provedAt": .string(APIJSON.iso(event.at)),
                               "validUntil": .string(APIJSON.iso(event.at.addingTimeInterval(Double(window))))])) {
                $0 == visitor
            }
            // The presses also claimed Keep Alive for a visitor inside the live chat: everyone
            // connected hears the keeper (after a dying chat's rescue, once more: same keeper).
            let participant = processor.participant(visitor, in: bottle)
            if rooms[bottle] != nil, await processor.survival(of: bottle)?.keeper?.participant == participant {
                broadcastKeeper(participant, in: bottle)
            }
        case .firstOpen, .participantJoined, .linesWhileAway:
            // A bottle sent from here to another box: its creator is known from the sent record.
            let local = (try? await processor.read { try $0.bottle(bottle) })?.creator
            let sent = local == nil ? (try? await processor.withStore { try MeshBottleStore(database: $0.database).sentBottle(bottle) }) ?? nil : nil
            guard let creator = local ?? sent?.creator else { return }
            var body: [String: JSONValue] = ["type": .string("creator"), "bottle": .string(bottle.description)]
            if let sent { body["at"] = .string(sent.destinationName) }
            switch event.kind {
            case .firstOpen(let distance):
                body["event"] = .string("firstOpen")
                if let distance { body["distanceTravelledMeters"] = .number(distance) }
            case .participantJoined: body["event"] = .string("joined")
            case .linesWhileAway(let count):
                body["event"] = .string("linesWhileAway")
                body["count"] = .number(Double(count))
            default: break
            }
            notifyBox(.object(body)) { creator.matches($0) }
        }
    }

    func tick() async {
        let instant = now()
        if !boxClients.isEmpty, let reading = weather(), reading.observedAt != weatherSent {
            weatherSent = reading.observedAt
            weatherChanged(reading)
        }
        for (bottle, room) in rooms {
            var room = room
            if !room.typing.expire(at: instant).isEmpty {
                rooms[bottle] = room
                broadcastTyping(bottle)
            }
        }
        for (bottle, waiting) in graces {
            for (participant, until) in waiting where until <= instant {
                graces[bottle]?[participant] = nil
                if (rooms[bottle]?.connections(of: participant) ?? 0) == 0 {
                    await processor.leave(participant, in: bottle, at: instant)
                }
            }
            if graces[bottle]?.isEmpty == true { graces[bottle] = nil }
        }
    }

    // MARK: - Sending

    /// The first message on a chat socket: who is here and typing, and where the chat stands
    /// (`state`, the countdown's `deadline`, the `keeper`; `null` when there is none).
    private func hello(_ bottle: BottleID, for participant: ParticipantID, survival: ChatSurvival?) -> String {
        guard let room = rooms[bottle] else { return "{}" }
        let viewer = room.viewer.viewing(as: participant)
        let present = Set(room.clients.values.map(\.participant)).sorted().map { Self.json(viewer.view($0)) }
        var state = "active"
        var deadline = JSONValue.null
        if case .countingDown(let end)? = survival?.phase {
            state = "dying"
            deadline = .string(APIJSON.iso(end))
        }
        return JSONValue.object([
            "type": .string("hello"), "me": Self.json(viewer.view(participant)), "present": .array(present),
            "typing": .array(room.typing.typing(at: now()).map { Self.json(viewer.view($0)) }),
            "state": .string(state), "deadline": deadline,
            "keeper": survival?.keeper.map { Self.json(viewer.view($0.participant)) } ?? .null,
        ]).text
    }

    private func broadcastKeeper(_ keeper: ParticipantID, in bottle: BottleID) {
        broadcast(to: bottle, except: nil) { viewer in
            .object(["type": .string("keeper"), "participant": Self.json(viewer.view(keeper))])
        }
    }

    private func broadcastTyping(_ bottle: BottleID) {
        guard let room = rooms[bottle] else { return }
        let typing = room.typing.typing(at: now())
        broadcast(to: bottle, except: nil) { viewer in
            .object(["type": .string("typing"), "participants": .array(typing.filter { $0 != viewer.viewer }.map { Self.json(viewer.view($0)) })])
        }
    }

    /// Sends `make(viewer)` to every connection of `bottle`, rendered once per participant.
    private func broadcast(to bottle: BottleID, except excluded: ParticipantID?, _ make: (ParticipantViewer) -> JSONValue) {
        guard let room = rooms[bottle] else { return }
        var rendered: [ParticipantID: String] = [:]
        for client in room.clients.values where client.participant != excluded {
            let line: String
            if let cached = rendered[client.participant] {
                line = cached
            } else {
                line = make(room.viewer.viewing(as: client.participant)).text
                rendered[client.participant] = line
            }
            send(line, to: client.continuation)
        }
    }

    private func notifyBox(_ value: JSONValue, to audience: (TokenHash) -> Bool = { _ in true }) {
        let line = value.text
        for client in boxClients.values where audience(client.visitor) {
            send(line, to: client.continuation)
        }
    }

    private func send(_ line: String, to continuation: AsyncStream<String>.Continuation) {
        if case .dropped = continuation.yield(line) { droppedMessages += 1 }
    }

    static func json(_ value: some Encodable) -> JSONValue {
        .fragment(APIJSON.string(value))
    }

}
