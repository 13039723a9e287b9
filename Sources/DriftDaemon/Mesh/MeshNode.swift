import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging

/// The box's mesh node: everything between the radio's bytes and the applications.
///
/// Heard frames are opened with the network key (forged, altered, foreign and malformed
/// frames are dropped and counted), checked against the expiry and the persisted
/// seen-set (duplicates and replays dropped and counted), held in SQLite for neighbours
/// that missed them, handed to the ``MeshRouter`` (which decides relays, cancels redundant
/// ones and delivers), reassembled and delivered. Own messages go into the outbox before
/// the first transmission (offline first); directed ones are retried on the outbox's
/// schedule until acknowledged. Hellos carry the box's public key and neighbour list;
/// a neighbour heard again after a while gets our digest and catches up
/// (``SyncDigest`` / ``SyncRequest``). Every transmission goes through the
/// ``TransmitQueue``, which keeps the airtime budget of the region.
///
/// The actor runs on a thread of its own: its SQLite writes block while SQLite syncs.
/// ``shutdown()`` ends that thread and waits for it (the node going away ends it too).
/// Its timers run on an injected clock and its wall time comes from an injected source, so a
/// test drives both.
public actor MeshNode {
    /// What the node is told by the configuration.
    public struct Settings: Sendable {
        public var hopLimit: UInt8
        public var messageLifetime: TimeInterval
        public var modulation: LoRaModulation
        public var router: MeshRouterConfiguration
        public var maximumFrameBytes: Int
        /// A copy of a directed packet this box relayed, heard again at least this long after,
        /// is its origin's end-to-end retry (the outbox waits 30 s and more) and is relayed again.
        public var retrySpacing: Duration
        /// How long the next hop may take between hearing a directed frame and starting its
        /// answer (its acknowledgement or relay): its store writes sync before it answers.
        public var answerTurnaround: Duration

        public init(hopLimit: UInt8, messageLifetime: TimeInterval, modulation: LoRaModulation,
                    router: MeshRouterConfiguration, maximumFrameBytes: Int = MeshFrame.maxBytes,
                    retrySpacing: Duration = .seconds(15), answerTurnaround: Duration = .milliseconds(500)) {
            self.retrySpacing = retrySpacing
            self.answerTurnaround = answerTurnaround
            self.hopLimit = hopLimit
            self.messageLifetime = messageLifetime
            self.modulation = modulation
            self.router = router
            self.maximumFrameBytes = maximumFrameBytes
        }
    }

    /// What `send` stored.
    public struct Receipt: Sendable, Codable, Equatable {
        public var id: String
        public var packetID: UInt32
        public var frames: Int
        public var destination: String?
    }

    /// Why a message cannot be sent.
    public struct SendError: Error, CustomStringConvertible {
        public var description: String
    }

    nonisolated let executor = DedicatedThreadExecutor(name: "mesh")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public nonisolated let me: NodeID
    public nonisolated let inbox: MeshInbox
    private nonisolated let keyPair: BoxKeyPair
    private let sealer: MeshSealer
    nonisolated let store: MeshStore
    private let settings: Settings
    private let logger: Logger
    /// The node's monotonic time: offsets since it was made, on the injected clock.
    private nonisolated let time: ElapsedTime
    /// The wall clock (expiry minutes, the outbox's and seen-set's times, delivery times).
    private nonisolated let wallClock: @Sendable () -> Date

    private var router: MeshRouter
    private var reassembler = Reassembler()
    private var keyring = PeerKeyring()
    private var queue: TransmitQueue
    private var counters = MeshCounters()
    /// Sealed frames of packets the router may still relay, by key.
    private var relayable: [PacketKey: (frame: [UInt8], expires: Duration)] = [:]
    /// Our own frames waiting for the router's `.transmit`, by key.
    private var ownFrames: [PacketKey: (frame: [UInt8], outbox: PacketKey, priority: TransmitPriority)] = [:]
    /// Directed packets this box relayed, with when it last did: their end-to-end retries are relayed again.
    private var relayedDirected: [PacketKey: Duration] = [:]
    /// Directed packets for others this box heard but did not relay, with when: see ``relayedDirected``.
    private var heardDirected: [PacketKey: Duration] = [:]
    /// Relay and catch-up copies still waiting for the radio: packet → queue id, and back.
    private var queuedCopies: [PacketKey: UInt64] = [:]
    private var queuedCopyKeys: [UInt64: (key: PacketKey, catchUp: Bool)] = [:]
    /// Directed messages delivered here, by first packet key: a retry of one is acknowledged again.
    private var acknowledged: OrderedKeys = OrderedKeys()
    /// When each neighbour was last sent our digest.
    private var lastDigestTo: [NodeID: Duration] = [:]
    /// When the digest sent for a returning neighbour is repeated once: the exchange is single
    /// frames without acknowledgement, and one lost frame must not lose the catch-up.
    private var digestRepeatAt: Duration?
    private var nextFrameID: UInt64 = 1
    /// Until when a neighbour is expected to keep the channel (the remaining fragments of a
    /// message we are hearing, or the answer to a directed frame we sent): our own
    /// transmissions wait.
    private var quietUntil: Duration = .zero
    private var nextHousekeeping: Duration = .zero
    private var nextOutboxCheck: Duration = .zero
    /// Called for every delivered message (applications subscribe here).
    private let onDeliver: @Sendable (MeshDelivery) -> Void
    /// Called when a destination acknowledges one of this box's directed messages (its outbox key).
    private let onConfirmed: @Sendable (PacketKey) -> Void
    /// A gateway's sink for frames that may leave the mesh (``attachBridge(_:)``).
    private var bridge: (@Sendable (BridgeFrame) -> Void)?

    public init(
        keyPair: BoxKeyPair, networkKey: [UInt8], store: MeshStore, budget: AirtimeBudget, settings: Settings,
        inbox: MeshInbox = MeshInbox(), logger: Logger, onDeliver: @escaping @Sendable (MeshDelivery) -> Void = { _ in },
        onConfirmed: @escaping @Sendable (PacketKey) -> Void = { _ in },
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.keyPair = keyPair
        self.me = keyPair.nodeID
        self.sealer = try MeshSealer(networkKey: networkKey)
        self.store = store
        self.settings = settings
        self.inbox = inbox
        self.logger = logger
        self.onDeliver = onDeliver
        self.onConfirmed = onConfirmed
        self.time = ElapsedTime(clock)
        self.wallClock = now
        self.router = MeshRouter(me: keyPair.nodeID, configuration: settings.router, seed: UInt64.random(in: 0...UInt64.max))
        self.queue = TransmitQueue(budget: budget)
        for peer in (try? store.peers()) ?? [] {
            _ = keyring.learn(nodeID: peer.node, publicKey: peer.publicKey)
        }
    }

    deinit {
        executor.stop()
    }

    /// Ends the node's thread once the work queued on it ran, and returns when it has ended.
    /// Calls that come later still run (on a short-lived thread of their own), so a late caller
    /// never waits for ever; the owner calls this once nothing uses the node any more.
    public nonisolated func shutdown() async {
        await executor.stopAndJoin()
    }

    private nonisolated var now: Duration { time.now }

    /// The most hops a frame header can carry (`hopStart` is a 3-bit value on the wire).
    public static let maximumHopLimit: UInt8 = 7

    // MARK: Sending

    /// Stores `message` in the outbox and queues its first transmission.
    ///
    /// `hopLimit` overrides the configured hop limit for this message (emergencies travel
    /// further); it is capped at 7, the most the header carries. `expiresAt` shortens the
    /// message's life below `mesh.message_lifetime_h` (a bottle's traffic dies with the
    /// bottle: relays drop its held frames then).
    public func send(_ message: MeshMessage, to destination: NodeID? = nil, priority: TransmitPriority = .normal,
                     hopLimit: UInt8? = nil, expiresAt: Date? = nil) throws -> Receipt {
        let payload = message.encoded
        let wallNow = wallClock()
        let lifetime = min(settings.messageLifetime, max(60, (expiresAt ?? .distantFuture).timeIntervalSince(wallNow)))
        let kind: FrameKind = destination == nil ? .broadcast : .directed
        let hops = min(hopLimit ?? settings.hopLimit, Self.maximumHopLimit)
        var probe = MeshHeader(kind: kind, origin: me, packetID: 0, destination: destination, hopStart: hops,
                               wantsAck: destination != nil,
                               expiresAtMinute: MeshHeader.expiryMinute(now: wallNow, lifetime: lifetime))
        let originKey = try destination.flatMap { node in
            try keyring.publicKey(for: node).map { try sealer.originKey(mine: keyPair, peerPublicKey: $0) }
        }
        let count = try Self.frameCount(payload, hasDestination: destination != nil, originTagged: originKey != nil)
        probe.packetID = try store.nextPacketIDs(count: count)
        let frames = try sealer.sealPayload(payload, base: probe, originKey: originKey)
        let id = probe.key
        let expiresAt = Date(timeIntervalSince1970: Double(probe.expiresAtMinute) * 60)
        // A broadcast's frames are also held by `enqueue` (for neighbours that miss them).
        try store.enqueue(id, destination: destination, frames: frames, priority: priority.rawValue, now: wallNow, expiresAt: expiresAt)
        for index in frames.indices {
            let key = PacketKey(origin: me, packetID: id.packetID &+ UInt32(index))
            _ = try store.markSeen(key, expiresAt: expiresAt, now: wallNow)
        }
        logger.info("mesh message stored", metadata: ["id": "\(id)", "frames": "\(frames.count)", "to": "\(destination.map { "\($0)" } ?? "all")"])
        nextOutboxCheck = .zero
        return Receipt(id: "\(id)", packetID: id.packetID, frames: frames.count, destination: destination.map { "\($0)" })
    }

    /// Throws the ``SendError`` that ``send(_:to:priority:hopLimit:expiresAt:)`` would throw for a
    /// message too large for 16 frames to `destination`, without storing or sending anything.
    public func checkFits(_ message: MeshMessage, to destination: NodeID? = nil) throws {
        let originTagged = destination.flatMap { keyring.publicKey(for: $0) } != nil
        _ = try Self.frameCount(message.encoded, hasDestination: destination != nil, originTagged: originTagged)
    }

    /// How many frames `payload` takes (1 unfragmented, else up to 16 fragments).
    static func frameCount(_ payload: [UInt8], hasDestination: Bool, originTagged: Bool) throws -> Int {
        if payload.count <= MeshFrameCodec.maxPlaintext(hasDestination: hasDestination, fragmented: false, originTagged: originTagged) {
            return 1
        }
        let chunk = MeshFrameCodec.maxPlaintext(hasDestination: hasDestination, fragmented: true, originTagged: originTagged)
        do {
            return try Fragmenter.split(payload: payload, maxChunk: chunk).count
        } catch {
            throw SendError(description: "the message is \(payload.count) bytes; at most \(Fragmenter.maxPayload(maxChunk: chunk)) fit 16 frames")
        }
    }

    /// Transmits what the outbox says is due (first sends and directed retries).
    private func serviceOutbox(wallNow: Date) {
        let due: [MeshOutboxEntry]
        do {
            due = try store.due(now: wallNow)
        } catch {
            logger.error("mesh outbox unreadable", metadata: ["error": "\(error)"])
            return
        }
        for entry in due {
            let priority = TransmitPriority(rawValue: entry.priority) ?? .normal
            for (index, frame) in entry.frames.enumerated() {
                guard let header = try? MeshFrameCodec.parse(frame).header else { continue }
                let key = PacketKey(origin: entry.id.origin, packetID: entry.id.packetID &+ UInt32(index))
                ownFrames[key] = (frame, entry.id, priority)
                handle(router.originate(header, now: now))
            }
            do {
                if entry.isBroadcast {
                    _ = try store.markSent(entry.id, now: wallNow)
                } else {
                    try store.recordAttempt(entry.id, now: wallNow)
                }
            } catch {
                logger.error("mesh outbox update failed", metadata: ["id": "\(entry.id)", "error": "\(error)"])
            }
        }
    }

    // MARK: Receiving

    /// One frame from the radio.
    public func receive(_ reception: RadioReception) {
        _ = process(reception, fromBridge: false)
    }

    /// Hands every authentic broadcast, directed and ack frame this box hears on its radio, and
    /// its own such frames as they go on the air, to `sink` (a gateway publishes them).
    public func attachBridge(_ sink: @escaping @Sendable (BridgeFrame) -> Void) {
        bridge = sink
    }

    /// One sealed frame that arrived from another mesh through a gateway: it takes the path of a
    /// heard frame (open, expiry, seen-set, origin check, hold, route, deliver) and is relayed here
    /// with the hops it has left. It is never handed back to the bridge. One-hop control frames
    /// (hello, digest, request) are refused.
    public func injectFromBridge(_ frame: [UInt8]) -> BridgeVerdict {
        counters.bridgeHeard += 1
        return process(RadioReception(bytes: frame, rssi: -60, snr: 10), fromBridge: true)
    }

    private func process(_ reception: RadioReception, fromBridge: Bool) -> BridgeVerdict {
        let t = now
        if !fromBridge {
            counters.heard += 1
            queue.noteReception(airtime: LoRaAirtime.duration(payloadBytes: reception.bytes.count, modulation: settings.modulation), endingAt: t)
        }
        let header: MeshHeader
        let plaintext: [UInt8]
        do {
            (header, plaintext) = try sealer.open(reception.bytes)
        } catch {
            switch error {
            case .wrongNetwork:
                counters.foreign += 1
                return .foreign
            case .authenticationFailed:
                counters.forged += 1
                return .forged
            default:
                counters.malformed[error.reason, default: 0] += 1
                return .malformed(error.reason)
            }
        }
        counters.authentic += 1
        let wallNow = wallClock()
        if header.isExpired(now: wallNow) {
            counters.expired += 1
            return .expired
        }
        if fromBridge, header.kind == .hello || header.kind == .digest || header.kind == .request {
            counters.bridgeRefused += 1
            return .refused
        }
        let link = LinkQuality(rssi: reception.rssi, snr: reception.snr)
        let expiresAt = Date(timeIntervalSince1970: Double(header.expiresAtMinute) * 60)
        let firstTime: Bool
        if header.origin == me {
            firstTime = false
        } else {
            do {
                firstTime = try store.markSeen(header.key, expiresAt: expiresAt, now: wallNow)
            } catch {
                logger.error("mesh seen-set write failed", metadata: ["error": "\(error)"])
                return .failed
            }
        }
        switch header.kind {
        case .hello:
            if firstTime { heardHello(header, plaintext, link: link, wallNow: wallNow) } else { counters.duplicates += 1 }
            return firstTime ? .accepted : .duplicate
        case .digest:
            if firstTime { heardDigest(header, plaintext) } else { counters.duplicates += 1 }
            return firstTime ? .accepted : .duplicate
        case .request:
            if firstTime { heardRequest(header, plaintext) } else { counters.duplicates += 1 }
            return firstTime ? .accepted : .duplicate
        case .broadcast, .directed, .ack:
            if !firstTime && header.origin != me { counters.duplicates += 1 }
            if let fragment = header.fragment, fragment.index + 1 < fragment.count {
                // The sender sends the remaining pieces back to back: stay quiet for them.
                let remaining = Double(fragment.count - fragment.index - 1)
                let piece = LoRaAirtime.duration(payloadBytes: reception.bytes.count, modulation: settings.modulation)
                quietUntil = max(quietUntil, t + piece * remaining + settings.router.slot * 2)
            }
            // Someone else just sent a copy of a packet we queued for catch-up: ours is redundant.
            if header.origin != me, let id = queuedCopies[header.key], queuedCopyKeys[id]?.catchUp == true, unqueue(header.key) {
                counters.resendsSuppressed += 1
            }
            if !firstTime, header.kind == .directed, header.destination == me, header.wantsAck {
                // The sender retried: our ack was lost on the way back. Acknowledge again.
                let first = PacketKey(origin: header.origin, packetID: header.packetID &- UInt32(header.fragment?.index ?? 0))
                if acknowledged.contains(first) {
                    acknowledge(first)
                } else if header.fragment != nil {
                    // A retry of a fragmented message not delivered yet: its pieces go to the
                    // reassembler again (it ignores pieces it holds). Without this, a message whose
                    // partial was lost (a missing piece outlived the reassembly timeout) could
                    // never complete: every piece of every retry would be a duplicate here.
                    deliver(header, plaintext)
                }
            }
            if !firstTime, header.kind == .directed, header.destination != me, header.origin != me,
               let last = relayedDirected[header.key] ?? heardDirected[header.key], t - last >= settings.retrySpacing,
               relayedDirected[header.key] != nil || router.neighbours.contains(where: { $0.id == header.destination }),
               let frame = try? MeshFrameCodec.relay(reception.bytes, by: me) {
                // An end-to-end retry of a directed message we relayed before (the outbox waits
                // 30 s and more between attempts): relay it again along the same path, or it
                // would die at the first hop as a duplicate. Also when we did not relay it the
                // first time but its destination is now our neighbour (we had not heard its
                // hello yet): one hop delivers it.
                relayedDirected[header.key] = t
                heardDirected[header.key] = nil
                counters.retriesRelayed += 1
                enqueue(frame, priority: .normal, counter: \.sentRelays)
            }
            if header.kind == .directed, header.destination == me, firstTime,
               case .forged = sealer.verifyOrigin(reception.bytes, me: keyPair, keyring: keyring) {
                counters.originForged += 1
                return .forged
            }
            if !fromBridge, header.origin != me, let bridge {
                bridge(BridgeFrame(bytes: reception.bytes, header: header, firstTime: firstTime, own: false,
                                   destinationIsLocal: isLocal(header.destination)))
            }
            if firstTime {
                if header.kind == .directed, header.destination != me, header.origin != me { heardDirected[header.key] = t }
                relayable[header.key] = (reception.bytes, t + settings.router.packetMemory)
                if header.kind != .ack {
                    do {
                        try store.hold(header.key, kind: header.kind, destination: header.destination, frame: reception.bytes,
                                       priority: TransmitPriority.normal.rawValue, receivedAt: wallNow, expiresAt: expiresAt, fromMe: false)
                    } catch {
                        logger.error("mesh hold failed", metadata: ["key": "\(header.key)", "error": "\(error)"])
                    }
                }
            }
            // Another copy from the broker (a second gateway's) says nothing about who heard
            // it on this mesh's air: it must not cancel the relay planned for the first copy.
            if fromBridge, !firstTime { return .duplicate }
            let actions = router.heard(header, link: link, firstTime: firstTime, now: t)
            handle(actions, plaintexts: firstTime ? [header.key: (header, plaintext)] : [:])
            return firstTime ? .accepted : .duplicate
        }
    }

    /// The neighbours the router knows (heard hellos), for a gateway's election.
    public func neighbourIDs() -> Set<NodeID> {
        Set(router.neighbours.map(\.id))
    }

    /// Whether `destination` is this box or a neighbour it hears (a frame for it need not leave the mesh).
    private func isLocal(_ destination: NodeID?) -> Bool {
        guard let destination else { return false }
        return destination == me || router.neighbours.contains { $0.id == destination }
    }

    private func heardHello(_ header: MeshHeader, _ plaintext: [UInt8], link: LinkQuality, wallNow: Date) {
        guard let hello = try? HelloPayload(decoding: plaintext), NodeID(publicKey: hello.publicKey) == header.origin else {
            counters.badHello += 1
            return
        }
        switch keyring.learn(nodeID: header.origin, publicKey: hello.publicKey) {
        case .learned, .known: break
        default:
            counters.badHello += 1
            return
        }
        _ = try? store.rememberPeer(header.origin, publicKey: hello.publicKey, at: wallNow, link: link, hops: Int(header.hopsTaken))
        let t = now
        let wasNeighbour = router.neighbours.contains { $0.id == header.origin && t - $0.lastHeard < settings.router.helloPeriod * 2 }
        handle(router.heardHello(from: header.origin, payload: hello, link: link, now: t))
        // A neighbour we had not heard for a while (or ever): tell it what we hold, so it can
        // fetch what it missed and offer what we missed.
        let recently = lastDigestTo[header.origin].map { t - $0 < settings.router.helloPeriod } ?? false
        if !wasNeighbour && !recently {
            lastDigestTo[header.origin] = t
            sendDigest()
            digestRepeatAt = t + settings.router.helloPeriod * 3
        }
    }

    private func heldSet() -> [PacketKey] {
        (try? store.heldKeys(since: Date.distantPast, limit: 4_096)) ?? []
    }

    private func heardDigest(_ header: MeshHeader, _ plaintext: [UInt8]) {
        counters.digestsHeard += 1
        guard let digest = try? SyncDigest(decoding: plaintext) else {
            counters.malformed["bad_digest", default: 0] += 1
            return
        }
        let held = heldSet()
        // What the neighbour lacks: send it (as held, the original sealed frames).
        resend(Reconciler.missing(held: held, digest: digest))
        // What we lack: ask for it.
        let wanted = Reconciler.wanted(held: Set(held), digest: digest)
        if !wanted.isEmpty {
            sendControl(.request, payload: SyncRequest(keys: wanted).encoded())
        }
    }

    private func heardRequest(_ header: MeshHeader, _ plaintext: [UInt8]) {
        counters.requestsHeard += 1
        guard let request = try? SyncRequest(decoding: plaintext) else {
            counters.malformed["bad_request", default: 0] += 1
            return
        }
        resend(request.keys)
    }

    /// Sends held frames to neighbours that lack them (background priority).
    private func resend(_ keys: [PacketKey]) {
        guard !keys.isEmpty, let packets = try? store.frames(for: Array(keys.prefix(32))) else { return }
        for packet in packets {
            let frame = (try? MeshFrameCodec.relay(packet.frame, by: me)) ?? packet.frame
            guard queuedCopies[packet.key] == nil else { continue }
            counters.framesResent += 1
            track(enqueue(frame, priority: .background, counter: \.sentSync), packet.key, catchUp: true)
        }
    }

    private func sendDigest() {
        let digest = SyncDigest(held: heldSet())
        sendControl(.digest, payload: digest.encoded())
    }

    /// Seals and queues a one-hop control frame (digest, request, hello, ack).
    private func sendControl(_ kind: FrameKind, payload: [UInt8], destination: NodeID? = nil, hopStart: UInt8 = 0,
                             priority: TransmitPriority = .background) {
        let wallNow = wallClock()
        do {
            let id = try store.nextPacketIDs(count: 1)
            let lifetime: TimeInterval = kind == .ack ? settings.messageLifetime : 600
            let header = MeshHeader(kind: kind, origin: me, packetID: id, destination: destination, hopStart: hopStart,
                                    expiresAtMinute: MeshHeader.expiryMinute(now: wallNow, lifetime: lifetime))
            let frame = try sealer.seal(header: header, plaintext: payload)
            _ = try store.markSeen(header.key, expiresAt: Date(timeIntervalSince1970: Double(header.expiresAtMinute) * 60), now: wallNow)
            if kind == .ack {
                ownFrames[header.key] = (frame, header.key, priority)
                handle(router.originate(header, now: now))
            } else {
                enqueue(frame, priority: priority, counter: kind == .hello ? \.sentHellos : \.sentSync)
            }
        } catch {
            logger.error("mesh control frame not sent", metadata: ["kind": "\(kind)", "error": "\(error)"])
        }
    }

    // MARK: Router actions

    private func handle(_ actions: [RouterAction], plaintexts: [PacketKey: (MeshHeader, [UInt8])] = [:]) {
        for action in actions {
            switch action {
            case .deliver(let key):
                if let (header, plaintext) = plaintexts[key] { deliver(header, plaintext) }
            case .transmit(let header, _):  // power control not applied by the daemon yet
                if let own = ownFrames.removeValue(forKey: header.key) {
                    enqueue(own.frame, priority: own.priority, counter: \.sentOwn)
                    if let bridge {
                        bridge(BridgeFrame(bytes: own.frame, header: header, firstTime: true, own: true,
                                           destinationIsLocal: isLocal(header.destination)))
                    }
                } else if let held = relayable[header.key] {
                    if header.kind == .directed { relayedDirected[header.key] = now; heardDirected[header.key] = nil }
                    if let frame = try? MeshFrameCodec.relay(held.frame, by: me) {
                        track(enqueue(frame, priority: header.kind == .ack ? .interactive : .normal, counter: \.sentRelays), header.key, catchUp: false)
                    }
                } else if header.origin == me, let frame = try? store.frames(for: [header.key]).first?.frame {
                    // An implicit-ack retry of one of our own broadcasts.
                    enqueue(frame, priority: .normal, counter: \.sentOwn)
                }
            case .cancelled(let key):
                // Planned relays the router dropped are in its own counter; here, relays already
                // queued for the radio and taken back. (A relay that already went out stays sent.)
                if unqueue(key) { counters.relaysCancelled += 1 }
                relayable[key] = nil
            case .sendHello:
                let hello = router.helloPayload(publicKey: keyPair.publicKeyBytes, now: now)
                sendControl(.hello, payload: hello.encoded())
            }
        }
    }

    private func deliver(_ header: MeshHeader, _ plaintext: [UInt8]) {
        if header.kind == .ack {
            guard header.destination == me, plaintext.count == 4 else { return }
            let acked = plaintext.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let key = PacketKey(origin: me, packetID: acked)
            if (try? store.markDelivered(key)) == true {
                counters.acksReceived += 1
                logger.info("mesh message delivered", metadata: ["id": "\(key)", "by": "\(header.origin)"])
                onConfirmed(key)
            }
            return
        }
        let whole: (header: MeshHeader, payload: [UInt8])
        if header.fragment != nil {
            guard case .complete(let message) = reassembler.accept(header: header, chunk: plaintext, now: now) else { return }
            whole = (message.header, message.payload)
        } else {
            whole = (header, plaintext)
        }
        if whole.header.kind == .directed, whole.header.wantsAck {
            acknowledged.insert(whole.header.key)
            if acknowledged.count > 1_024 { acknowledged.removeFirst() }
            acknowledge(whole.header.key)
        }
        guard let message = MeshMessage(decoding: whole.payload) else {
            counters.malformed["empty_payload", default: 0] += 1
            return
        }
        counters.delivered += 1
        let delivery = MeshDelivery(key: whole.header.key, origin: whole.header.origin, destination: whole.header.destination,
                                    hops: Int(whole.header.hopsTaken), message: message, receivedAt: wallClock(),
                                    frames: header.fragment.map { Int($0.count) } ?? 1)
        inbox.append(.init(origin: "\(delivery.origin)", packetID: delivery.key.packetID, port: message.port, text: message.text,
                           bytes: message.body.count, hops: delivery.hops, receivedAt: delivery.receivedAt))
        logger.debug("mesh message delivered here", metadata: ["id": "\(delivery.key)", "hops": "\(delivery.hops)"])
        onDeliver(delivery)
    }

    /// Sends the end-to-end acknowledgement of a directed message (its first packet id) back to its origin.
    private func acknowledge(_ message: PacketKey) {
        var ack: [UInt8] = []
        withUnsafeBytes(of: message.packetID.bigEndian) { ack.append(contentsOf: $0) }
        sendControl(.ack, payload: ack, destination: message.origin, hopStart: settings.hopLimit, priority: .interactive)
    }

    // MARK: Transmit queue

    /// Queues a frame for the radio; returns its queue id (`nil` when refused).
    @discardableResult
    private func enqueue(_ frame: [UInt8], priority: TransmitPriority, counter: WritableKeyPath<MeshCounters, Int>) -> UInt64? {
        guard frame.count <= settings.maximumFrameBytes else {
            counters.queueRefused += 1
            return nil
        }
        let outgoing = OutgoingFrame(id: nextFrameID, bytes: frame, modulation: settings.modulation, priority: priority)
        nextFrameID += 1
        switch queue.enqueue(outgoing) {
        case .queued:
            counters[keyPath: counter] += 1
            return outgoing.id
        case .queuedDroppingOldest:
            counters[keyPath: counter] += 1
            counters.queueDropped += 1
            return outgoing.id
        case .refused(let refusal):
            counters.queueRefused += 1
            logger.warning("mesh frame refused by the airtime budget", metadata: ["reason": "\(refusal)"])
            return nil
        }
    }

    /// Takes a queued relay or catch-up copy of `key` back off the queue (it became redundant).
    private func unqueue(_ key: PacketKey) -> Bool {
        guard let id = queuedCopies.removeValue(forKey: key) else { return false }
        queuedCopyKeys[id] = nil
        return queue.remove(id: id)
    }

    /// Remembers a queued relay (`catchUp` false) or catch-up copy of `key`.
    private func track(_ id: UInt64?, _ key: PacketKey, catchUp: Bool) {
        guard let id else { return }
        queuedCopies[key] = id
        queuedCopyKeys[id] = (key, catchUp)
    }

    /// The next frame to put on the air now, or when to ask again (`nil`: nothing queued).
    public func nextTransmission() -> (frame: OutgoingFrame?, wakeAt: Duration?) {
        // Half duplex: while a neighbour is still sending the rest of a fragmented message,
        // transmitting would make us deaf to it (and every retry would end the same way).
        if now < quietUntil, queue.count > 0 { return (nil, quietUntil) }
        switch queue.next(now: now) {
        case .send(let frame):
            if let copy = queuedCopyKeys.removeValue(forKey: frame.id) { queuedCopies[copy.key] = nil }
            awaitAnswer(to: frame)
            return (frame, nil)
        case .wait(let until): return (nil, until)
        case .idle: return (nil, nil)
        }
    }

    /// After the last frame of a directed message that wants an acknowledgement, the next hop
    /// answers at once: keep the channel free for that answer. A frame of ours sent back to
    /// back with it made us deaf to the acknowledgement and, when the neighbour's turnaround was
    /// slow, the neighbour deaf to our frame — two messages queued together (a chat join and
    /// its first line) lost each other again at every retry, minutes for one chat line.
    private func awaitAnswer(to frame: OutgoingFrame) {
        guard let header = try? MeshFrameCodec.parse(frame.bytes).header, header.kind == .directed, header.wantsAck else { return }
        if let fragment = header.fragment, fragment.index + 1 < fragment.count { return }  // the rest follows first
        let ackBytes = MeshFrameCodec.overheadBytes(hasDestination: true, fragmented: false, originTagged: false) + 4
        let answer = LoRaAirtime.duration(payloadBytes: ackBytes, modulation: settings.modulation)
        quietUntil = max(quietUntil, now + frame.airtime + settings.answerTurnaround + answer)
        counters.answerWaits += 1
    }

    public func transmissionFailed() {
        counters.radioErrors += 1
    }

    // MARK: Timers

    /// Runs everything due (router timers, outbox, housekeeping); returns the next instant
    /// anything is due, as a monotonic offset comparable to ``monotonicNow``.
    public func tick() -> Duration {
        let t = now
        handle(router.due(now: t))
        if let repeatAt = digestRepeatAt, t >= repeatAt {
            digestRepeatAt = nil
            sendDigest()
        }
        let wallNow = wallClock()
        if t >= nextOutboxCheck {
            serviceOutbox(wallNow: wallNow)
            // Retries wait 30 s and more: look every 5 s while something waits, else once a
            // minute (a new message wakes the check at once), so an idle box stays idle.
            let waiting = ((try? store.counts())?.queued ?? 0) > 0
            nextOutboxCheck = t + (waiting ? .seconds(5) : .seconds(60))
        }
        if t >= nextHousekeeping {
            nextHousekeeping = t + .seconds(60)
            _ = reassembler.expire(now: t)
            relayable = relayable.filter { $0.value.expires > t }
            relayedDirected = relayedDirected.filter { t - $0.value < .seconds(4_000) }  // the outbox gives up after ~57 min
            heardDirected = heardDirected.filter { t - $0.value < .seconds(4_000) }
            do {
                _ = try store.pruneSeen(now: wallNow)
                _ = try store.dropExpired(now: wallNow)
                _ = try store.prune(now: wallNow)
            } catch {
                logger.error("mesh housekeeping failed", metadata: ["error": "\(error)"])
            }
        }
        var next = min(nextOutboxCheck, nextHousekeeping)
        if let routerNext = router.nextDeadline { next = min(next, routerNext) }
        if let repeatAt = digestRepeatAt { next = min(next, repeatAt) }
        return max(next, t + .milliseconds(5))
    }

    /// Monotonic time on the node's clock (what ``tick()`` and ``nextTransmission()`` answer in).
    public nonisolated var monotonicNow: Duration { now }

    /// The clock the node's time runs on (its ``monotonicNow`` counts from when it was made).
    public nonisolated var clock: any Clock<Duration> { time.clock }

    /// Sleeps on the node's clock until `offset` (a ``monotonicNow`` value, such as ``tick()``'s
    /// answer); returns at once when it has passed. Throws `CancellationError` when cancelled.
    public nonisolated func sleep(until offset: Duration) async throws {
        try await time.sleep(until: offset)
    }

    /// This box's X25519 public key (its node id is the key's hash): other boxes seal secrets
    /// meant for it alone (a chat password) to it.
    public nonisolated var publicKeyBytes: [UInt8] { keyPair.publicKeyBytes }

    /// Opens a secret another box sealed to this box for `context` (``DriftMesh/SealedToBox``).
    public nonisolated func openSealed(_ sealed: [UInt8], context: [UInt8]) -> [UInt8]? {
        keyPair.openSealed(sealed, context: context)
    }

    // MARK: Status

    /// The node's counters with the router's planned-and-dropped relays added in.
    private var countersWithRouter: MeshCounters {
        var all = counters
        all.relaysCancelled += router.counters.relaysCancelled
        return all
    }

    public func status() -> MeshStatus {
        let t = now
        let outbox = (try? store.counts()) ?? MeshOutboxCounts()
        let usage = (try? store.heldUsage()) ?? (0, 0)
        let utilisation = queue.utilisation.summary(now: t)
        return MeshStatus(
            node: "\(me)",
            neighbours: router.neighbours.map {
                .init(id: "\($0.id)", rssi: $0.link.rssi, snr: $0.link.snr, lastHeardSecondsAgo: Double((t - $0.lastHeard) / .milliseconds(1)) / 1000,
                      theirNeighbours: $0.neighbours.count)
            },
            counters: countersWithRouter,
            outbox: .init(queued: outbox.queued, sent: outbox.sent, delivered: outbox.delivered, failed: outbox.failed),
            heldPackets: usage.0, heldBytes: usage.1, seen: (try? store.seenCount()) ?? 0, queued: queue.count,
            airtimeUsedPercent: utilisation.airUtilTxPercent, channelUtilisationPercent: utilisation.channelUtilisationPercent)
    }
}

/// A set of packet keys that remembers insertion order, so the oldest can be dropped.
struct OrderedKeys {
    private var order: [PacketKey] = []
    private var members: Set<PacketKey> = []

    var count: Int { members.count }

    func contains(_ key: PacketKey) -> Bool { members.contains(key) }

    mutating func insert(_ key: PacketKey) {
        guard members.insert(key).inserted else { return }
        order.append(key)
    }

    mutating func removeFirst() {
        guard !order.isEmpty else { return }
        members.remove(order.removeFirst())
    }
}
