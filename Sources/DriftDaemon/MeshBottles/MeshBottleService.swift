import DriftCore
import DriftMesh
import DriftStore
import Foundation
import Logging
import ServiceLifecycle

/// Carries the product's traffic over the mesh (`docs/mesh-bottles.md`): the box directory,
/// bottles sent to other boxes, remote chat, creator notices and erase-everywhere.
///
/// It listens on the mesh ports (``MeshPorts``) and on the bottles' ``EventBus``; it keeps its
/// durable state in ``MeshBottleStore``. All decisions about a bottle stay with the box that
/// hosts it: other boxes hold only links, listings and chat replicas, and erase them when the
/// host says the bottle is over (or when its hard expiry passes, whichever comes first).
public final class MeshBottleService: Service, Sendable {
    public struct Settings: Sendable {
        /// The box's name in the directory.
        public var name: String
        /// How often this box broadcasts its directory entry.
        public var boxInfoInterval: Duration = .seconds(900)
        /// A remote participant who sent nothing for this long has left.
        public var remotePresenceTimeout: TimeInterval = 300
        /// Directory entries unheard for this long are forgotten.
        public var forgetBoxesAfter: TimeInterval = 7 * 86_400
        /// Tombstones outlive a bottle's erasure by this much (late frames are dropped meanwhile).
        public var tombstoneLifetime: TimeInterval = 3 * 86_400
        /// Longest remote chat line, UTF-8 bytes (one frame carries ~150).
        public var maximumRemoteLineBytes = 500
        /// How often expired traces are erased (and failed erasures retried), tombstones and
        /// forgotten boxes pruned, unannounced chats announced and silent remote participants let go.
        public var housekeepingInterval: Duration = .seconds(10)
        /// Until the box's position has gone out in a directory entry, how often the service
        /// looks for one (a GPS fix that arrived): found, it is announced at once.
        public var positionCheckInterval: Duration = .seconds(10)

        public init(name: String) {
            self.name = name
        }
    }

    public let node: MeshNode
    public let store: MeshBottleStore
    let processor: BottleProcessor
    let events: EventBus
    let ports: MeshPorts
    let settings: Settings
    let logger: Logger
    let state = MeshBottleState()
    /// What the announcements and the housekeeping sleep on.
    let clock: any Clock<Duration>
    /// The wall clock: every time this service stores, sends or compares.
    let now: @Sendable () -> Date

    /// Plain text lines for stock Meshtastic apps (a bottle arrived, a chat opened); a no-op
    /// on other radios.
    let textPublisher: @Sendable (String) async -> Void

    /// - Parameters:
    ///   - clock: what the directory announcements and the housekeeping sleep on.
    ///   - now: the wall clock.
    public init(node: MeshNode, ports: MeshPorts, processor: BottleProcessor, events: EventBus, settings: Settings, logger: Logger,
                textPublisher: @escaping @Sendable (String) async -> Void = { _ in },
                clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.textPublisher = textPublisher
        self.clock = clock
        self.now = now
        self.node = node
        self.ports = ports
        self.processor = processor
        self.events = events
        self.store = MeshBottleStore(database: processor.store.database)
        self.settings = settings
        self.logger = logger
        // Subscribe before the mesh starts delivering.
        state.subscribe(ports: ports)
    }

    /// Runs `body` with the mesh bottle store on the bottle processor's thread (the store shares
    /// its database), never on the cooperative pool: every SQLite call blocks.
    public func withStore<T: Sendable>(_ body: @Sendable (MeshBottleStore) throws -> T) async rethrows -> T {
        let store = self.store
        return try await processor.withStore { _ in try body(store) }
    }

    public func run() async throws {
        let streams = state.takeStreams()
        let bus = await events.subscribe()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.announceLoop() }
            group.addTask { for await delivery in streams.boxInfo { await self.receiveBoxInfo(delivery) } }
            group.addTask { for await delivery in streams.bottle { await self.receiveParcel(delivery) } }
            group.addTask { for await delivery in streams.chat { await self.receiveChat(delivery) } }
            group.addTask { for await delivery in streams.erase { await self.receiveErase(delivery) } }
            group.addTask { for await delivery in streams.notice { await self.receiveNotice(delivery) } }
            group.addTask { for await key in streams.confirmations { await self.confirmed(key) } }
            group.addTask { for await event in bus { await self.handle(event) } }
            group.addTask { await self.housekeepingLoop() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }

    // MARK: Directory

    /// The delays of the first two directory entries: once the radio is up, and again once
    /// neighbours have said hello (the first copy may have gone out before anyone listened).
    static let earlyAnnouncements: [Duration] = [.seconds(2), .seconds(15)]

    private func announceLoop() async {
        // The early entries, then one every interval (± 10 %); and one as soon as the box knows
        // its position. Nothing tells this service when a GPS fix arrives, so until a position
        // went out it looks every `positionCheckInterval`; once one did, it sleeps until the
        // next entry is due.
        let time = ElapsedTime(clock)
        var early = Self.earlyAnnouncements
        var next = early.removeFirst()
        var announcedPosition = false
        while true {
            let wake = announcedPosition ? next : min(next, time.now + settings.positionCheckInterval)
            do { try await time.sleep(until: wake) } catch { return }
            let positionKnown = await position(at: now()) != nil
            guard time.now >= next || (positionKnown && !announcedPosition) else { continue }
            await announce()
            announcedPosition = positionKnown
            next = time.now + (early.isEmpty ? settings.boxInfoInterval * Double.random(in: 0.9...1.1) : early.removeFirst())
        }
    }

    /// Broadcasts this box's directory entry now.
    func announce() async {
        let at = now()
        let activity = ((try? await processor.withStore { try $0.bottles(in: [.locked, .openable, .active, .dying]) }.count) ?? 0)
        let info = BottleMeshWire.BoxInfo(name: settings.name, position: await position(at: at),
                                          country: processor.settings.country, activity: activity)
        do {
            _ = try await node.send(MeshMessage(port: MeshMessage.Port.boxInfo.rawValue, body: info.encoded), priority: .background,
                                    expiresAt: at.addingTimeInterval(3_600))
        } catch {
            logger.warning("box info not sent", metadata: ["error": "\(error)"])
        }
    }

    private func receiveBoxInfo(_ delivery: MeshDelivery) async {
        guard let info = BottleMeshWire.BoxInfo(decoding: delivery.message.body) else { return state.countMalformed() }
        do {
            (try await withStore { try $0.rememberBox(MeshBox(node: delivery.origin, name: info.name, position: info.position, country: info.country,
                                          activity: info.activity, lastSeen: delivery.receivedAt)) })
        } catch {
            logger.error("box directory not updated", metadata: ["box": "\(delivery.origin)", "error": "\(error)"])
        }
    }

    private func position(at now: Date) async -> GeoPoint? {
        await processor.ambient.position(at: now, settings: processor.settings)
    }

    // MARK: Sending bottles

    /// Where a visitor wants a new bottle to go.
    public enum Destination: Sendable, Equatable {
        /// The box with this name in the directory.
        case named(String)
        /// The box nearest this point.
        case nearest(GeoPoint)
        /// A random box, weighted by recent activity.
        case drift
    }

    /// Why a bottle cannot travel.
    public struct PlacementError: Error, Sendable, CustomStringConvertible {
        public var field: String
        public var description: String
    }

    /// Picks the destination box from the directory (never this box).
    public func resolve(_ destination: Destination, using generator: inout some RandomNumberGenerator) async throws -> MeshBox {
        let boxes = ((try? await withStore { try $0.boxes() }) ?? []).filter { $0.node != node.me }
        guard !boxes.isEmpty else {
            throw PlacementError(field: "placement", description: "no other box is known yet on the mesh")
        }
        switch destination {
        case .named(let name):
            let wanted = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let box = boxes.filter({ $0.name.lowercased() == wanted }).max(by: { $0.lastSeen < $1.lastSeen }) else {
                throw PlacementError(field: "placement.box", description: "no box named \"\(name)\" is known; known: \(boxes.map(\.name).joined(separator: ", "))")
            }
            return box
        case .nearest(let point):
            guard let box = boxes.filter({ $0.position != nil }).min(by: { $0.position!.distance(to: point) < $1.position!.distance(to: point) }) else {
                throw PlacementError(field: "placement.near", description: "no known box has a position")
            }
            return box
        case .drift:
            return MeshBottleService.drift(boxes, using: &generator)
        }
    }

    /// A random box, each weighted 1 + its recent activity.
    static func drift(_ boxes: [MeshBox], using generator: inout some RandomNumberGenerator) -> MeshBox {
        let weights = boxes.map { 1 + max(0, $0.activity) }
        var pick = Int.random(in: 0..<weights.reduce(0, +), using: &generator)
        for (box, weight) in zip(boxes, weights) {
            if pick < weight { return box }
            pick -= weight
        }
        return boxes[boxes.count - 1]
    }

    /// Sends a new bottle to `box`: stored in the mesh outbox (the only copy of its content on
    /// this box), recorded as sent (no content). Media never travel.
    public func send(_ bottle: Bottle, to box: MeshBox, at now: Date) async throws -> MeshSentBottle {
        let message = try Self.parcelMessage(bottle)
        let receipt: MeshNode.Receipt
        do {
            receipt = try await node.send(message, to: box.node, priority: .normal, expiresAt: bottle.expiresAt)
        } catch {
            throw PlacementError(field: "content.text", description: "the bottle cannot travel: \(error)")
        }
        let sent = MeshSentBottle(bottle: bottle.id, creator: bottle.creator, destination: box.node, destinationName: box.name,
                                  shareCode: bottle.shareCode, packetID: receipt.packetID, sentAt: now, expiresAt: bottle.expiresAt)
        (try await withStore { try $0.recordSent(sent) })
        logger.info("bottle sent over the mesh", metadata: ["bottle": "\(bottle.id)", "to": "\(box.name) \(box.node)", "frames": "\(receipt.frames)"])
        return sent
    }

    /// Throws the ``PlacementError`` that ``send(_:to:at:)`` would throw because of the bottle
    /// itself (media, too large for the frames), without sending anything: the API checks a
    /// drop this way before it hashes the bottle's password (a stand-in hash has the same size).
    public func checkTravel(_ bottle: Bottle, to box: MeshBox) async throws {
        let message = try Self.parcelMessage(bottle)
        do { try await node.checkFits(message, to: box.node) } catch {
            throw PlacementError(field: "content.text", description: "the bottle cannot travel: \(error)")
        }
    }

    private static func parcelMessage(_ bottle: Bottle) throws(PlacementError) -> MeshMessage {
        guard bottle.content.image == nil, bottle.content.whisper == nil else {
            throw PlacementError(field: "content", description: "images and whispers do not travel the mesh; send text only")
        }
        return MeshMessage(port: MeshMessage.Port.bottle.rawValue, body: BottleMeshWire.Parcel(bottle).encoded)
    }

    private func confirmed(_ key: PacketKey) async {
        let at = now()
        guard let sent = (try? await withStore { try $0.markSentDelivered(packetID: key.packetID, at: at) }) else { return }
        logger.info("bottle delivered", metadata: ["bottle": "\(sent.bottle)", "to": "\(sent.destinationName)"])
    }

    // MARK: Receiving bottles

    private func receiveParcel(_ delivery: MeshDelivery) async {
        guard let parcel = BottleMeshWire.Parcel(decoding: delivery.message.body) else {
            logger.warning("a bottle parcel did not decode; dropped", metadata: ["from": "\(delivery.origin)", "bytes": "\(delivery.message.body.count)"])
            return state.countMalformed()
        }
        let at = now()
        guard parcel.expiresAt > at, (try? await withStore { try $0.isErased(parcel.id) }) != true else { return }
        state.rememberParcel(parcel.id, frames: .init(origin: delivery.key.origin.rawValue, firstPacketID: delivery.key.packetID,
                                                      frames: UInt8(clamping: delivery.frames)))
        do {
            if (try await processor.withStore { try $0.contains(parcel.id) }) { return }  // a retry of one already here
            let bottle = parcel.bottle(hostedBy: processor.settings.boxID)
            _ = (try await processor.withStore { try $0.insert(bottle) })
            _ = try await withStore { try $0.link(parcel.id, node: delivery.origin, role: .creator, expiresAt: parcel.expiresAt) }
            for box in state.takeHeldWatches(parcel.id) { await watched(parcel.id, from: box) }
            logger.info("bottle arrived over the mesh", metadata: ["bottle": "\(parcel.id)", "from": "\(delivery.origin)", "hops": "\(delivery.hops)"])
            await textPublisher(parcel.drift ? "A drift bottle washed up at \(settings.name)." : "A bottle arrived at \(settings.name).")
            await processor.refresh(parcel.id, now: at)
        } catch {
            logger.error("arrived bottle not stored", metadata: ["bottle": "\(parcel.id)", "error": "\(error)"])
        }
    }

    // MARK: Events of bottles hosted here

    /// One event of the bottles here (internal for the in-process tests; ``run()`` calls it).
    func handle(_ event: DriftEvent) async {
        let bottle = event.bottle
        switch event.kind {
        case .expired(let reason):
            await bottleEnded(bottle, reason: reason)
        case .firstOpen(let distance):
            await notifyCreator(bottle, .firstOpen(distanceTravelledMeters: distance))
            await announceChat(bottle)
        case .participantJoined:
            await notifyCreator(bottle, .participantJoined)
        case .linesWhileAway(let count):
            await notifyCreator(bottle, .linesWhileAway(count: count))
        case .becameOpenable:
            await notifyCreator(bottle, .becameOpenable, alsoWatchers: true)
        case .linePosted(let id, _):
            await relayLine(id, in: bottle)
        default:
            break
        }
    }

    private func notifyCreator(_ bottle: BottleID, _ kind: BottleMeshWire.Notice.Kind, alsoWatchers: Bool = false) async {
        var links = (try? await withStore { try $0.links(of: bottle, role: .creator) }) ?? []
        if alsoWatchers {
            let watchers = ((try? await withStore { try $0.links(of: bottle, role: .watcher) }) ?? []).filter { watcher in !links.contains { $0.node == watcher.node } }
            links += watchers
        }
        guard !links.isEmpty else { return }
        let body = BottleMeshWire.Notice(bottle: bottle, kind: kind).encoded
        for link in links {
            await sendLogged(MeshMessage(port: MeshMessage.Port.notice.rawValue, body: body), to: link.node,
                             expiresAt: link.expiresAt, what: "notice")
        }
    }

    /// Sends `message` to `box`; a failure (outbox full, too large) is logged, not thrown: the
    /// caller is reacting to an event and has nobody to hand the error to.
    private func sendLogged(_ message: MeshMessage, to box: NodeID, expiresAt: Date, what: String) async {
        do {
            _ = try await node.send(message, to: box, priority: .normal, expiresAt: expiresAt)
        } catch {
            logger.warning("mesh message not sent", metadata: ["what": "\(what)", "to": "\(box)", "error": "\(error)"])
        }
    }

    /// Tells the mesh that this bottle's chat is open, and what a visitor elsewhere must bring
    /// (``DriftCore/RemoteAccess``): chats that can only be joined in person (presence,
    /// one-shot) are not announced at all.
    private func announceChat(_ id: BottleID) async {
        guard let bottle = (try? await processor.withStore { try $0.bottle(id) }) else { return }
        let access: BottleMeshWire.Chat.Access
        switch RemoteAccess(bottle) {
        case .inPersonOnly: return
        case .password: access = .password(hostKey: node.publicKeyBytes)
        case .open: access = .open
        }
        let open = BottleMeshWire.Chat.open(id, expiresAt: bottle.expiresAt, hint: String((bottle.hint ?? "").prefix(80)), access: access)
        do {
            _ = try await node.send(MeshMessage(port: MeshMessage.Port.chat.rawValue, body: open.encoded), priority: .normal,
                                    expiresAt: bottle.expiresAt)
            // Everyone heard of it: erase-everywhere must reach everyone.
            _ = try await withStore { try $0.link(id, node: .broadcast, role: .participant, expiresAt: bottle.expiresAt) }
            await textPublisher("A bottle was opened at \(settings.name); its chat is open to every Drift Box.")
        } catch {
            logger.warning("chat not announced on the mesh", metadata: ["bottle": "\(id)", "error": "\(error)"])
        }
    }

    /// Chats open here that the mesh has not heard of yet (the first-open event is rate-limited
    /// for creators, so it may not have come; or the announce could not be stored).
    private func announceUnannouncedChats() async {
        let open = ((try? await processor.withStore { try $0.bottles(in: [.active, .dying]) }) ?? []).filter { RemoteAccess($0) != .inPersonOnly }
        for bottle in open where !(((try? await withStore { try $0.links(of: bottle.id, role: .participant) }) ?? []).contains { $0.node == .broadcast }) {
            await announceChat(bottle.id)
        }
    }

    private func relayLine(_ id: MessageID, in bottle: BottleID) async {
        let boxes = ((try? await withStore { try $0.links(of: bottle, role: .participant) }) ?? []).filter { $0.node != .broadcast }
        guard !boxes.isEmpty else { return }
        var found = processor.recentLines.line(id)
        if found == nil { found = try? await processor.withStore { try $0.message(id) } }
        guard let message = found, !message.text.isEmpty else { return }
        let label = ((try? await processor.withStore { try $0.participants(of: bottle) }) ?? []).first { $0.participant == message.participant }?.label ?? .local
        let relay = BottleMeshWire.Chat.relay(bottle, message: id, participant: message.participant, label: label,
                                              sentAt: message.sentAt, language: message.language.rawValue, text: message.text)
        for box in boxes {
            guard state.mayRelay(to: box.node, at: now()) else {
                state.countRateLimited()
                continue
            }
            await sendLogged(MeshMessage(port: MeshMessage.Port.chat.rawValue, body: relay.encoded), to: box.node,
                             expiresAt: box.expiresAt, what: "chat relay")
        }
    }

    /// The bottle hosted here is over (its rows are already erased): tell every box that holds
    /// part of it, then erase the mesh traces here.
    private func bottleEnded(_ bottle: BottleID, reason: LifecycleTrigger) async {
        let links = (try? await withStore { try $0.links(of: bottle) }) ?? []
        let parcel = state.takeParcel(bottle)
        if !links.isEmpty || parcel != nil {
            let erase = BottleMeshWire.Erase(bottle: bottle, reason: reason, parcel: parcel.map { [$0] } ?? [])
            do {
                _ = try await node.send(MeshMessage(port: MeshMessage.Port.erase.rawValue, body: erase.encoded), priority: .interactive)
                logger.info("erase sent over the mesh", metadata: ["bottle": "\(bottle)", "boxes": "\(links.count)"])
            } catch {
                logger.error("erase not sent", metadata: ["bottle": "\(bottle)", "error": "\(error)"])
            }
        }
        await eraseTraces(bottle)
    }

    // MARK: Erase

    private func receiveErase(_ delivery: MeshDelivery) async {
        guard let erase = BottleMeshWire.Erase(decoding: delivery.message.body) else { return state.countMalformed() }
        // Held frames that carried the bottle: relays drop them.
        for frames in erase.parcel {
            let ids = (0..<UInt32(frames.frames)).map { frames.firstPacketID &+ $0 }
            _ = try? node.store.forget(origin: NodeID(frames.origin), packetIDs: ids)
        }
        let hostedHere = (try? await processor.withStore { try $0.contains(erase.bottle) }) == true
        let isHost = ((try? await withStore { try $0.links(of: erase.bottle, role: .host) }) ?? []).contains { $0.node == delivery.origin }
        if hostedHere {
            // Only the host decides about a bottle it hosts; an erase naming it from elsewhere is ignored.
            logger.notice("erase for a bottle hosted here ignored", metadata: ["bottle": "\(erase.bottle)", "from": "\(delivery.origin)"])
            return
        }
        let bottle = erase.bottle
        let hadTraces = await withStore { store in
            !(((try? store.links(of: bottle)) ?? []).isEmpty && ((try? store.remoteLines(of: bottle)) ?? []).isEmpty
              && ((try? store.sentBottle(bottle)) ?? nil) == nil)
        }
        await eraseTraces(erase.bottle)
        if hadTraces {
            logger.info("bottle erased on the host's word", metadata: ["bottle": "\(erase.bottle)", "host": "\(delivery.origin)", "linked": "\(isHost)"])
            // The last event about it on this box (creator or remote-chat pages hear it once).
            await events.publish(DriftEvent(bottle: erase.bottle, at: now(), kind: .expired(reason: erase.reason)))
        }
    }

    /// Deletes every mesh trace of `bottle` here and checkpoints the WAL.
    func eraseTraces(_ bottle: BottleID) async {
        do {
            let tombstoneUntil = now().addingTimeInterval(settings.tombstoneLifetime)
            try await withStore { store in
                try store.eraseTraces(of: bottle, tombstoneUntil: tombstoneUntil)
                try store.database.checkpointAndTruncateWAL()
            }
        } catch {
            logger.error("mesh traces not erased; will retry", metadata: ["bottle": "\(bottle)", "error": "\(error)"])
        }
        state.forget(bottle)
    }

    // MARK: Notices for creators here

    private func receiveNotice(_ delivery: MeshDelivery) async {
        guard let notice = BottleMeshWire.Notice(decoding: delivery.message.body) else { return state.countMalformed() }
        if notice.kind == .watch { return await watched(notice.bottle, from: delivery.origin) }
        guard let sent = (try? await withStore { try $0.sentBottle(notice.bottle) }), sent.destination == delivery.origin else { return }
        let kind: DriftEvent.Kind
        switch notice.kind {
        case .becameOpenable: kind = .becameOpenable
        case .firstOpen(let distance): kind = .firstOpen(distanceTravelledMeters: distance)
        case .participantJoined: kind = .participantJoined(ParticipantID(visitor: sent.creator, bottle: sent.bottle, secret: processor.settings.secret))
        case .linesWhileAway(let count): kind = .linesWhileAway(count: count)
        case .watch: return
        }
        state.recordNotice(notice.bottle, notice.kind)
        await events.publish(DriftEvent(bottle: notice.bottle, at: delivery.receivedAt, kind: kind))
    }

    /// Another box's visitors watch a bottle hosted here: "openable" goes there from now on (at
    /// once if it already is).
    private func watched(_ id: BottleID, from box: NodeID) async {
        guard let bottle = (try? await processor.withStore { try $0.bottle(id) }) else {
            // The watch overtook the bottle on the way (one frame against several): keep it for its arrival.
            state.holdWatch(id, from: box)
            return
        }
        guard bottle.state == .locked || bottle.state == .openable else { return }
        guard (try? await withStore { try $0.link(id, node: box, role: .watcher, expiresAt: bottle.expiresAt) }) == true else { return }
        logger.info("bottle watched from another box", metadata: ["bottle": "\(id)", "box": "\(box)"])
        if bottle.state == .openable {
            await sendLogged(MeshMessage(port: MeshMessage.Port.notice.rawValue,
                                         body: BottleMeshWire.Notice(bottle: id, kind: .becameOpenable).encoded),
                             to: box, expiresAt: bottle.expiresAt, what: "openable notice")
        }
    }

    /// A visitor here watches a bottle sent from here (by its share code): the host is asked to
    /// tell this box when it can be opened. Returns the sent record; `nil` for an unknown code.
    public func watch(shareCode: ShareCode, by watcher: TokenHash, at now: Date) async throws -> MeshSentBottle? {
        guard let sent = (try await withStore { try $0.sentBottle(shareCode: shareCode) }), sent.expiresAt > now else { return nil }
        guard (try await withStore { try $0.watchRemote(sent.bottle, by: watcher, at: now) }) else { return nil }
        _ = try await node.send(MeshMessage(port: MeshMessage.Port.notice.rawValue,
                                            body: BottleMeshWire.Notice(bottle: sent.bottle, kind: .watch).encoded),
                                to: sent.destination, priority: .normal, expiresAt: sent.expiresAt)
        return sent
    }

    /// Creator notices received for bottles sent from here (newest last).
    func notices(of bottle: BottleID) -> [BottleMeshWire.Notice.Kind] { state.notices(of: bottle) }

    // MARK: Remote chat

    /// One frame on the chat port (internal for the in-process tests; ``run()`` calls it).
    func receiveChat(_ delivery: MeshDelivery) async {
        guard let chat = BottleMeshWire.Chat(decoding: delivery.message.body) else { return state.countMalformed() }
        let at = now()
        guard (try? await withStore { try $0.isErased(chat.bottle) }) != true else { return }
        switch chat {
        case .open(let id, let expiresAt, let hint, let access):
            guard expiresAt > at, (try? await processor.withStore { try $0.contains(id) }) != true else { return }
            var hostKey: [UInt8]?
            if case .password(let key) = access {
                // The key must be the announcing box's own (its hash is the node id).
                guard NodeID(publicKey: key) == delivery.origin else { return state.countMalformed() }
                hostKey = key
            }
            // The hint is visitor text shown here: the same rule as one written here.
            let (origin, key, note) = (delivery.origin, hostKey, VisitorText.isInvisible(hint) ? "" : VisitorText.stripped(hint))
            _ = try? await withStore { try $0.link(id, node: origin, role: .host, expiresAt: expiresAt, note: note, hostKey: key) }
        case .relay(let id, let message, let participant, let label, let sentAt, let language, let text):
            guard await isHost(delivery.origin, of: id) else { return }
            guard let text = cleanedLine(text, in: id, from: delivery.origin) else { return }
            do {
                _ = try await withStore { try $0.appendRemoteLine(MeshRemoteLine(id: message.description, bottle: id, participant: participant.hex,
                                                              label: label.rawValue, text: text, sentAt: sentAt, language: language)) }
            } catch {
                logger.error("remote chat line not stored", metadata: ["bottle": "\(id)", "error": "\(error)"])
            }
        case .admission(let id, let participant, let verdict):
            guard await isHost(delivery.origin, of: id) else { return }
            state.recordJoin(.answered(verdict), for: participant, in: id)
        case .join(let id, let participant, let sealed):
            guard !sentBeforeLeave(participant, in: id, delivery) else { return }
            let password = sealed.flatMap { node.openSealed($0, context: Self.sealContext(id, participant)) }
                .flatMap { String(validating: $0, as: UTF8.self) }
            let verdict: RemoteAdmission = sealed != nil && password == nil
                ? .refused(.wrongPassword)  // sealed to another key, or altered on the way
                : await admit(participant, in: id, from: delivery.origin, password: password, at: at).verdict
            await answer(verdict, to: participant, in: id, box: delivery.origin)
        case .line(let id, let participant, let language, let text):
            guard !sentBeforeLeave(participant, in: id, delivery) else { return }
            let (verdict, entered) = await admit(participant, in: id, from: delivery.origin, password: nil, at: at)
            guard verdict == .admitted else {
                // Never accepted from someone the host did not admit; they hear why (budget allowing).
                if state.mayRelay(to: delivery.origin, at: at) { await answer(verdict, to: participant, in: id, box: delivery.origin) }
                return
            }
            // Joined by this first line (a chat that needs nothing): their box learns it, and
            // shows them the chat's lines from now on.
            if entered { await answer(.admitted, to: participant, in: id, box: delivery.origin) }
            guard let text = cleanedLine(text, in: id, from: delivery.origin) else { return }
            do {
                let message = try ChatMessage.make(id: MessageID.make(at: at), bottle: id, participant: participant, sentAt: at,
                                                   text: String(text.prefix(ChatMessage.maximumTextLength)), language: language)
                try await processor.post(message)
            } catch {
                logger.info("remote line refused", metadata: ["bottle": "\(id)", "error": "\(error)"])
            }
        case .leave(let id, let participant):
            state.recordLeave(participant, in: id, from: delivery.origin, packetID: delivery.key.packetID)
            guard state.remoteLeft(participant, in: id, from: delivery.origin) else { return }
            await processor.leave(participant, in: id, at: at)
        }
    }

    /// A join or line that `participant`'s box sent before their leave and that reached here after
    /// it (a lost frame retried later): dropped and counted, so it cannot bring them back in.
    private func sentBeforeLeave(_ participant: ParticipantID, in id: BottleID, _ delivery: MeshDelivery) -> Bool {
        guard state.sentBeforeLeave(participant, in: id, from: delivery.origin, packetID: delivery.key.packetID) else { return false }
        state.countStale()
        logger.info("remote chat word sent before its leave, dropped", metadata: ["bottle": "\(id)", "box": "\(delivery.origin)"])
        return true
    }

    /// Whether `box` is the host this box knows for `bottle` (relays and answers come from it alone).
    private func isHost(_ box: NodeID, of bottle: BottleID) async -> Bool {
        ((try? await withStore { try $0.links(of: bottle, role: .host) }) ?? []).contains { $0.node == box }
    }

    /// A chat line from the mesh under the rule for text visitors write here (`VisitorText`):
    /// direction controls and tag characters removed; `nil` (dropped and counted) when it shows
    /// nothing. Another box's software is no more trusted than a visitor's page.
    private func cleanedLine(_ text: String, in id: BottleID, from box: NodeID) -> String? {
        let cleaned = VisitorText.stripped(text).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !cleaned.isEmpty, !VisitorText.isInvisible(cleaned) else {
            state.countRefusedText()
            logger.info("remote chat line that shows nothing dropped", metadata: ["bottle": "\(id)", "from": "\(box)"])
            return nil
        }
        return cleaned
    }

    /// What a sealed chat password is bound to: the bottle and the participant it admits.
    static func sealContext(_ bottle: BottleID, _ participant: ParticipantID) -> [UInt8] {
        Array("chat-join".utf8) + bottle.bytes + participant.bytes
    }

    /// A visitor at `box` asks to be (or writes as if) inside the chat of a bottle hosted here:
    /// someone already inside through that same box stays (the same pseudonym through another
    /// box is a stranger there); anyone else is admitted by the host's rules
    /// (``BottleProcessor/admitRemote(_:in:box:label:password:at:)``, which also keys on the
    /// box), and only then are lines relayed to their box. `entered`: admitted by this call.
    private func admit(_ participant: ParticipantID, in id: BottleID, from box: NodeID, password: String?,
                       at now: Date) async -> (verdict: RemoteAdmission, entered: Bool) {
        guard let bottle = (try? await processor.withStore { try $0.bottle(id) }), bottle.state == .active || bottle.state == .dying else {
            return (.refused(.chatClosed), false)
        }
        guard state.remoteHeard(participant, in: id, from: box, at: now) else { return (.admitted, false) }  // inside already
        let directory = (try? await withStore { try $0.box(box) })
        let here = await position(at: now)
        let distance = here.flatMap { mine in directory?.position.map { mine.distance(to: $0) } }
        let label = ParticipantLabel.classify(distanceMeters: distance, participantCountry: directory?.country,
                                              bottleCountry: processor.settings.country)
        let boxID = (try? BoxID("node-\(String(format: "%08x", box.rawValue))")) ?? processor.settings.boxID
        let verdict = await processor.admitRemote(participant, in: id, box: boxID, label: label, password: password, at: now)
        if verdict == .admitted {
            _ = (try? await withStore { try $0.link(id, node: box, role: .participant, expiresAt: bottle.expiresAt) })
        } else {
            _ = state.remoteLeft(participant, in: id, from: box)  // not inside: the next word asks again
            logger.info("remote participant not admitted", metadata: ["bottle": "\(id)", "box": "\(box)", "reason": "\(verdict)"])
        }
        return (verdict, verdict == .admitted)
    }

    /// Tells `box` the host's answer for `participant` (a short-lived directed message).
    private func answer(_ verdict: RemoteAdmission, to participant: ParticipantID, in id: BottleID, box: NodeID) async {
        let expiry = (try? await processor.withStore { try $0.bottle(id) })?.expiresAt ?? now().addingTimeInterval(600)
        await sendLogged(MeshMessage(port: MeshMessage.Port.chat.rawValue,
                                     body: BottleMeshWire.Chat.admission(id, participant: participant, verdict: verdict).encoded),
                         to: box, expiresAt: min(expiry, now().addingTimeInterval(600)), what: "chat admission")
    }

    /// A visitor here asks to join a chat hosted elsewhere: the password, when the host's
    /// announcement asked for one, travels sealed to the host's key (relays cannot read it).
    func join(_ id: BottleID, participant: ParticipantID, password: String?) async throws {
        guard let host = (try await withStore { try $0.links(of: id, role: .host) }).first else {
            throw PlacementError(field: "bottle", description: "no open chat with that id is known on the mesh")
        }
        var sealed: [UInt8]?
        if let key = host.hostKey {
            guard let password, !password.isEmpty else {
                throw PlacementError(field: "password", description: "this chat needs the bottle's password")
            }
            guard password.utf8.count <= 256 else { throw PlacementError(field: "password", description: "is longer than 256 bytes") }
            sealed = try SealedToBox.seal(Array(password.utf8), to: key, context: Self.sealContext(id, participant))
        }
        try await sendRemote(.join(id, participant: participant, sealedPassword: sealed))
        // Someone admitted who joins again (their page reloaded) keeps reading until the host answers.
        if state.joinState(participant, in: id) != .answered(.admitted) { state.recordJoin(.pending, for: participant, in: id) }
    }

    /// Where `participant` (a visitor here) stands with the host of the chat of `bottle`
    /// hosted elsewhere. Only an admitted visitor reads its lines here: the host relays to
    /// boxes, so this box keeps the host's answer per visitor and checks it.
    public func joinState(_ participant: ParticipantID, in bottle: BottleID) -> MeshBottleState.JoinState {
        state.joinState(participant, in: bottle)
    }

    /// Whether the chat of `bottle` (hosted elsewhere) asks visitors here for its password.
    func needsPassword(_ bottle: BottleID) async -> Bool {
        ((try? await withStore { try $0.links(of: bottle, role: .host) }) ?? []).contains { $0.hostKey != nil }
    }

    /// Sends a remote visitor's join, line or leave to the host of `bottle`.
    func sendRemote(_ chat: BottleMeshWire.Chat) async throws {
        guard let host = (try await withStore { try $0.links(of: chat.bottle, role: .host) }).first else {
            throw PlacementError(field: "bottle", description: "no open chat with that id is known on the mesh")
        }
        if case .line(_, _, _, let text) = chat, text.utf8.count > settings.maximumRemoteLineBytes {
            throw PlacementError(field: "text", description: "a line to another box holds at most \(settings.maximumRemoteLineBytes) bytes")
        }
        guard state.mayRelay(to: host.node, at: now()) else {
            state.countRateLimited()
            throw PlacementError(field: "text", description: "the mesh is busy; wait a few seconds before the next line")
        }
        _ = try await node.send(MeshMessage(port: MeshMessage.Port.chat.rawValue, body: chat.encoded), to: host.node,
                                priority: .interactive, expiresAt: host.expiresAt)
    }

    // MARK: Housekeeping

    private func housekeepingLoop() async {
        while true {
            do { try await clock.sleep(for: settings.housekeepingInterval) } catch { return }
            let at = now()
            for bottle in (try? await withStore { try $0.expiredTraces(now: at) }) ?? [] {
                logger.info("mesh traces of an expired bottle erased", metadata: ["bottle": "\(bottle)"])
                await eraseTraces(bottle)
            }
            _ = (try? await withStore { try $0.pruneTombstones(now: at) })
            await announceUnannouncedChats()
            _ = (try? await withStore { try $0.forgetBoxes(unseenSince: at.addingTimeInterval(-settings.forgetBoxesAfter)) })
            for (bottle, participant) in state.silentRemoteParticipants(olderThan: at.addingTimeInterval(-settings.remotePresenceTimeout)) {
                await processor.leave(participant, in: bottle, at: at)
            }
        }
    }

    /// Figures for `driftd status` and tests.
    public var counters: MeshBottleState.Counters { state.counters }
}
