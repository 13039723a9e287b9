import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging

/// The box's mesh node: the ``MeshNodeMachine`` driven on the box's clock, with the radio's
/// frames, the applications' messages and the scheduler's wake-ups as its inputs.
///
/// Every decision (open, check, hold, route, relay, reassemble, deliver, acknowledge, retry,
/// the quiet rule, the airtime budget) is the machine's; this actor only feeds it inputs
/// stamped with the injected clock and wall time, and carries out its actions: frames handed
/// to ``MeshService`` for the radio, deliveries to the inbox and the applications,
/// confirmations, frames to a gateway's bridge, log lines. The machine's memory is the
/// ``MeshStore`` (SQLite).
///
/// The actor runs on a thread of its own: its SQLite writes block while SQLite syncs.
/// ``shutdown()`` ends that thread and waits for it (the node going away ends it too).
/// Its timers run on an injected clock and its wall time comes from an injected source, so a
/// test drives both.
public actor MeshNode {
    /// What the node is told by the configuration.
    public typealias Settings = MeshNodeMachine<MeshStore>.Settings
    /// What `send` stored.
    public typealias Receipt = MeshNodeReceipt
    /// Why a message cannot be sent.
    public typealias SendError = MeshNodeMachine<MeshStore>.SendError

    nonisolated let executor = DedicatedThreadExecutor(name: "mesh")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public nonisolated let me: NodeID
    public nonisolated let inbox: MeshInbox
    private nonisolated let keyPair: BoxKeyPair
    nonisolated let store: MeshStore
    private let logger: Logger
    /// The node's monotonic time: offsets since it was made, on the injected clock.
    private nonisolated let time: ElapsedTime
    /// The wall clock (expiry minutes, the outbox's and seen-set's times, delivery times).
    private nonisolated let wallClock: @Sendable () -> Date

    private var machine: MeshNodeMachine<MeshStore>
    /// Called for every delivered message (applications subscribe here).
    private let onDeliver: @Sendable (MeshDelivery) -> Void
    /// Called when a destination acknowledges one of this box's directed messages (its outbox key).
    private let onConfirmed: @Sendable (PacketKey) -> Void
    /// A gateway's sink for frames that may leave the mesh (``attachBridge(_:)``).
    private var bridge: (@Sendable (BridgeFrame) -> Void)?
    /// Rung whenever the node is handed work (a message to send, a frame heard or bridged):
    /// ``MeshService``'s scheduler sleeps on it between deadlines. Every sender rings it through
    /// the node, so none can leave a message waiting for the next timer (a bottle sent while
    /// the scheduler slept until its once-a-minute outbox check left after up to a minute).
    nonisolated let workQueued = Doorbell()
    /// One contention slot of the modulation: the unit of listen-before-talk back-off.
    public nonisolated let contentionSlot: Duration
    /// The radio's modulation: the airtime of each frame heard.
    private nonisolated let modulation: LoRaModulation
    /// Whether the channel is busy (frames heard ≥ 10 % of the last 30 s): the router's copy
    /// counter applies only then. The machine is told each time it flips.
    private var channel = ChannelBusyDetector()

    public init(
        keyPair: BoxKeyPair, networkKey: [UInt8], store: MeshStore, budget: AirtimeBudget, settings: Settings,
        inbox: MeshInbox = MeshInbox(), logger: Logger, onDeliver: @escaping @Sendable (MeshDelivery) -> Void = { _ in },
        onConfirmed: @escaping @Sendable (PacketKey) -> Void = { _ in },
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.keyPair = keyPair
        self.me = keyPair.nodeID
        self.store = store
        self.inbox = inbox
        self.logger = logger
        self.onDeliver = onDeliver
        self.onConfirmed = onConfirmed
        self.time = ElapsedTime(clock)
        self.wallClock = now
        self.contentionSlot = settings.router.slot
        self.modulation = settings.modulation
        self.machine = try MeshNodeMachine(keyPair: keyPair, networkKey: networkKey, memory: store, budget: budget,
                                           settings: settings, seed: UInt64.random(in: 0...UInt64.max))
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
    public static let maximumHopLimit: UInt8 = MeshNodeMachine<MeshStore>.maximumHopLimit

    // MARK: Driving the machine

    /// Hands `input` to the machine at the current instant and carries out its actions; returns
    /// the answers the caller waits for (frames to transmit, wake-ups, send and bridge answers).
    private func feed(_ input: MeshNodeInput) -> [MeshNodeAction] {
        let instant = MeshNodeTime(monotonic: now, wall: wallClock())
        switch input {
        case .send, .heard, .bridged: workQueued.ring()  // the scheduler looks at the timers and the queue again
        case .timer, .radioIdle, .transmitFailed, .channelBusy, .channelUtilisation: break
        }
        let tracing = logger.logLevel == .trace
        if tracing, case .heard(let bytes, let rssi, let snr) = input {
            var metadata = MeshFrameTrace.metadata(of: bytes)
            metadata["rssi"] = "\(rssi)"
            metadata["snr"] = "\(snr)"
            logger.trace("mesh frame heard", metadata: metadata)
        }
        var answers: [MeshNodeAction] = []
        for action in machine.handle(input, at: instant) {
            if tracing { trace(action) }
            switch action {
            case .deliver(let delivery):
                deliver(delivery)
            case .confirmed(let key):
                onConfirmed(key)
            case .bridge(let frame):
                bridge?(frame)
            case .log(let line):
                log(line)
            case .transmit, .wake, .stored, .refused, .verdict:
                answers.append(action)
            }
        }
        return answers
    }

    /// The trace line of an action (``MeshFrameTrace``): frames handed to the radio, messages
    /// stored and confirmed (a delivery has its debug line).
    private func trace(_ action: MeshNodeAction) {
        switch action {
        case .transmit(let frame):
            var metadata = MeshFrameTrace.metadata(of: frame.bytes)
            metadata["airtime_ms"] = "\(frame.airtime / .milliseconds(1))"
            logger.trace("mesh frame to the radio", metadata: metadata)
        case .stored(let receipt):
            logger.trace("mesh message stored", metadata: ["message": "\(receipt.id)", "frames": "\(receipt.frames)",
                                                           "to": "\(receipt.destination ?? "all")"])
        case .confirmed(let key):
            logger.trace("mesh message confirmed", metadata: ["message": "\(key)"])
        case .deliver, .bridge, .log, .wake, .refused, .verdict:
            break  // a delivery has its own line (debug)
        }
    }

    private func deliver(_ delivery: MeshNodeDelivery) {
        guard let message = MeshMessage(decoding: delivery.payload) else { return }  // the machine delivers no empty payload
        let delivered = MeshDelivery(key: delivery.key, origin: delivery.origin, destination: delivery.destination,
                                     hops: delivery.hops, message: message, receivedAt: delivery.receivedAt, frames: delivery.frames)
        inbox.append(.init(origin: "\(delivered.origin)", packetID: delivered.key.packetID, port: message.port, text: message.text,
                           bytes: message.body.count, hops: delivered.hops, receivedAt: delivered.receivedAt))
        logger.debug("mesh message delivered here", metadata: ["id": "\(delivered.key)", "hops": "\(delivered.hops)"])
        onDeliver(delivered)
    }

    private func log(_ line: MeshNodeLog) {
        let level: Logger.Level = switch line.level {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
        logger.log(level: level, "\(line.message)", metadata: line.metadata.mapValues { .string($0) })
    }

    // MARK: Sending

    /// Stores `message` in the outbox and queues its first transmission.
    ///
    /// `hopLimit` overrides the configured hop limit for this message (emergencies travel
    /// further); it is capped at 7, the most the header carries. `expiresAt` shortens the
    /// message's life below `mesh.message_lifetime_h` (a bottle's traffic dies with the
    /// bottle: relays drop its held frames then).
    public func send(_ message: MeshMessage, to destination: NodeID? = nil, priority: TransmitPriority = .normal,
                     hopLimit: UInt8? = nil, expiresAt: Date? = nil) throws -> Receipt {
        let input = MeshNodeMessage(payload: message.encoded, destination: destination, priority: priority,
                                    hopLimit: hopLimit, expiresAt: expiresAt)
        for answer in feed(.send(input)) {
            switch answer {
            case .stored(let receipt): return receipt
            case .refused(let error): throw error
            default: continue
            }
        }
        throw SendError(description: "the mesh node gave no answer")
    }

    /// Throws the ``SendError`` that ``send(_:to:priority:hopLimit:expiresAt:)`` would throw for a
    /// message too large for 16 frames to `destination`, without storing or sending anything.
    public func checkFits(_ message: MeshMessage, to destination: NodeID? = nil) throws {
        try machine.checkFits(message.encoded, to: destination)
    }

    // MARK: Receiving

    /// One frame from the radio.
    public func receive(_ reception: RadioReception) {
        let airtime = LoRaAirtime.duration(payloadBytes: reception.bytes.count, modulation: modulation)
        if let busy = channel.heard(airtime: airtime, endingAt: now) { _ = feed(.channelBusy(busy)) }
        _ = feed(.channelUtilisation(channel.lastShare))
        _ = feed(.heard(bytes: reception.bytes, rssi: reception.rssi, snr: reception.snr))
    }

    /// Whether the node's router counts the channel as busy (what it was last told).
    public var channelBusy: Bool { machine.channelBusy }

    /// Hands every authentic broadcast, directed and ack frame this box hears on its radio, and
    /// its own such frames as they go on the air, to `sink` (a gateway publishes them).
    public func attachBridge(_ sink: @escaping @Sendable (BridgeFrame) -> Void) {
        bridge = sink
        machine.bridging = true
    }

    /// One sealed frame that arrived from another mesh through a gateway: it takes the path of a
    /// heard frame (open, expiry, seen-set, origin check, hold, route, deliver) and is relayed here
    /// with the hops it has left. It is never handed back to the bridge. One-hop control frames
    /// (hello, digest, request) are refused.
    public func injectFromBridge(_ frame: [UInt8]) -> BridgeVerdict {
        for case .verdict(let verdict) in feed(.bridged(frame)) { return verdict }
        return .failed
    }

    /// The neighbours the router knows (heard hellos), for a gateway's election.
    public func neighbourIDs() -> Set<NodeID> {
        Set(machine.neighbours.map(\.id))
    }

    // MARK: Transmitting

    /// The next frame to put on the air now, or when to ask again (`nil`: nothing queued).
    public func nextTransmission() -> (frame: OutgoingFrame?, wakeAt: Duration?) {
        for answer in feed(.radioIdle) {
            switch answer {
            case .transmit(let frame): return (frame, nil)
            case .wake(let at): return (nil, at)
            default: continue
            }
        }
        return (nil, nil)
    }

    /// Until when a frame the radio already holds waits for a hidden box's answer to a frame
    /// heard (``MeshNodeMachine/answerHeldUntil``; a ``monotonicNow`` value).
    public func answerHeldUntil() -> Duration {
        machine.answerHeldUntil
    }

    public func transmissionFailed() {
        _ = feed(.transmitFailed)
    }

    // MARK: Timers

    /// Runs everything due (router timers, outbox, housekeeping, the channel turning quiet);
    /// returns the next instant anything is due, as a monotonic offset comparable to
    /// ``monotonicNow``.
    public func tick() -> Duration {
        let t = now
        if let busy = channel.update(now: t) { _ = feed(.channelBusy(busy)) }
        var next = t + .seconds(60)
        for case .wake(let at) in feed(.timer) { next = at }
        if let quiet = channel.quietAt(after: t) { next = min(next, quiet) }
        return next
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

    public func status() -> MeshStatus {
        let t = now
        let outbox = (try? store.counts()) ?? MeshOutboxCounts()
        let usage = (try? store.heldUsage()) ?? (0, 0)
        let utilisation = machine.utilisation(at: t)
        let plan = machine.settings.router.topologyPlan
        let lacking = plan ? machine.topologyListsLacking : nil
        return MeshStatus(
            node: "\(me)",
            neighbours: machine.neighbours.map {
                .init(id: "\($0.id)", rssi: $0.link.rssi, snr: $0.link.snr, lastHeardSecondsAgo: Double((t - $0.lastHeard) / .milliseconds(1)) / 1000,
                      theirNeighbours: $0.neighbours.count)
            },
            counters: machine.allCounters,
            outbox: .init(queued: outbox.queued, sent: outbox.sent, delivered: outbox.delivered, failed: outbox.failed),
            heldPackets: usage.0, heldBytes: usage.1, seen: (try? store.seenCount()) ?? 0, queued: machine.queuedFrames,
            airtimeUsedPercent: utilisation.airUtilTxPercent, channelUtilisationPercent: utilisation.channelUtilisationPercent,
            topologyBoxes: plan ? machine.topology.count : nil,
            topologyListsLacking: lacking?.all, topologyListsAcrossOneWayLinks: lacking?.acrossOneWayLinks,
            budgetHeldSeconds: machine.budgetHeldTotal(at: t) / .seconds(1))
    }
}
