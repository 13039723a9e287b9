import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging

/// The gateway's state: what to publish, what is in flight, the election, and frames from
/// the broker into the node. Called by ``GatewayService``'s loops.
///
/// The actor runs on a thread of its own: its outbox is SQLite, and every append and removal
/// is a commit that waits for its fsync, which must not hold a cooperative-pool thread.
///
/// Time comes from outside: `clock` for every interval (telemetry, election, settle, the
/// de-duplication window, batching acknowledgements, retrying a deferred publish) and `now`
/// for the wall-clock times it writes (outbox rows, telemetry). ``tick()`` does what is due and
/// answers how long until the next deadline; when a deadline moves earlier than the one last
/// answered (a connect starts the settle delay, the first acknowledgement of a batch, a
/// deferred publish), the core calls `rearm` so the timer does not oversleep.
actor GatewayCore {
    private nonisolated let executor = DedicatedThreadExecutor(name: "gateway")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    struct Settings: Sendable {
        var topics: GatewayTopics
        /// A repeat of a directed frame heard at least this long after it was published is its
        /// origin's end-to-end retry, and is published again.
        var retrySpacing: Duration = .seconds(20)
        /// After a (re)connect, the outbox waits this long, so the other gateways (reconnecting
        /// too after a broker restart) have subscribed again before the queued frames go out.
        var settle: Duration = .seconds(2)
        /// QoS 1 publishes in flight at once.
        var window: Int = 200
        var telemetryInterval: Duration = .seconds(60)
        /// The first telemetry after start.
        var firstTelemetry: Duration = .seconds(5)
        /// How often the node's radio neighbours are read again, published, and the election decided.
        var electionInterval: Duration = .seconds(5)
        /// Acknowledged rows leave the outbox together (one commit) this long after the first of
        /// them, or at once when 64 have gathered.
        var ackBatching: Duration = .milliseconds(250)
        /// A publish the client refused (the connection dropped meanwhile) is tried again after this.
        var retryDelay: Duration = .seconds(1)
        /// How long a published frame is remembered for the de-duplication window.
        var publishedMemory: Duration = .seconds(4_000)
    }

    let me: NodeID
    private let settings: Settings
    private let client: MQTTClient
    private let outbox: MQTTOutbox
    private let node: MeshNode
    private let wake: @Sendable () -> Void
    private let telemetrySources: GatewayTelemetry.Sources
    /// Shows why the broker cannot be reached (`nil` once connected) in the box's faults.
    private let reportFault: @Sendable (String?) -> Void
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// Time on `clock` since the core was made: every instant below is such an offset.
    private let elapsed: @Sendable () -> Duration
    /// Wakes the timer when a deadline moved earlier than the one ``tick()`` last answered.
    private let rearm: @Sendable () -> Void

    private var election: GatewayElection
    private var forwarder = true
    private var myNeighbours: Set<NodeID> = []
    private var publishedNeighbours: Set<NodeID>?
    private var connected = false
    private var connectedAt: Duration?
    /// Why the last connection attempt failed (refused by the broker, TLS, name lookup).
    private var problem: String?
    /// Message id → outbox row of QoS 1 publishes awaiting their PUBACK.
    private var inflight: [Int32: Int64] = [:]
    /// The highest outbox row handed to the client since the last (re)connect.
    private var sentThrough: Int64 = 0
    private var acked: [Int64] = []
    /// When the acknowledged rows gathered so far leave the outbox.
    private var flushAcksAt: Duration?
    /// When a publish the client refused is tried again.
    private var retryAt: Duration?
    private var lastPublished: [PacketKey: Duration] = [:]
    private var nextTelemetry: Duration
    private var nextElection: Duration = .zero
    /// The deadline ``tick()`` last answered (what the timer sleeps until).
    private var scheduled: Duration = .zero
    private(set) var counters = GatewayCounters()

    /// - Parameters:
    ///   - clock: every interval; production passes `ContinuousClock()`, tests a manual clock.
    ///   - now: the wall clock for outbox rows and telemetry.
    ///   - rearm: called when a deadline moved earlier than the one ``tick()`` last answered.
    init(settings: Settings, client: MQTTClient, outbox: MQTTOutbox, node: MeshNode, wake: @escaping @Sendable () -> Void,
         telemetry: GatewayTelemetry.Sources, reportFault: @escaping @Sendable (String?) -> Void = { _ in }, logger: Logger,
         clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() },
         rearm: @escaping @Sendable () -> Void = {}) {
        self.me = node.me
        self.settings = settings
        self.client = client
        self.outbox = outbox
        self.node = node
        self.wake = wake
        self.telemetrySources = telemetry
        self.reportFault = reportFault
        self.logger = logger
        self.now = now
        self.elapsed = Self.stopwatch(clock)
        self.rearm = rearm
        self.election = GatewayElection(me: node.me)
        self.nextTelemetry = settings.firstTelemetry
    }

    /// The time on `clock` since this call.
    private static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    deinit {
        executor.stop()
    }

    // MARK: Mesh → broker

    /// Frames the node handed over: those to publish go to the outbox, then out.
    func offer(_ frames: [BridgeFrame], overflow: Int) {
        counters.overflow += overflow
        let t = elapsed()
        var messages: [(topic: String, payload: [UInt8], qos: Int)] = []
        for frame in frames {
            counters.offered += 1
            guard frame.own || forwarder else { counters.standby += 1; continue }
            guard !frame.destinationIsLocal else { counters.local += 1; continue }
            let key = frame.header.key
            if !frame.own, !frame.firstTime {
                // Only an end-to-end retry of a directed message crosses again.
                guard frame.header.kind == .directed, let last = lastPublished[key], t - last >= settings.retrySpacing else {
                    counters.repeats += 1
                    continue
                }
            }
            lastPublished[key] = t
            messages.append((settings.topics.frames(from: me), GatewayFramePayload.encode(frame.bytes), 1))
        }
        guard !messages.isEmpty else { return }
        do {
            try outbox.append(messages, now: now())
            counters.queued += messages.count
        } catch {
            logger.error("mqtt outbox write failed", metadata: ["error": "\(error)"])
        }
        drain()
        rearmIfEarlier()
    }

    /// Publishes a JSON document through the outbox (QoS 1): camp beacons.
    func enqueue(topic: String, json: [UInt8]) {
        do {
            try outbox.append([(topic, json, 1)], now: now())
        } catch {
            logger.error("mqtt outbox write failed", metadata: ["error": "\(error)"])
        }
        drain()
        rearmIfEarlier()
    }

    /// Hands queued messages to the client while connected, settled and within the window.
    private func drain() {
        guard connected, let since = connectedAt, elapsed() - since >= settings.settle else { return }
        retryAt = nil
        while inflight.count < settings.window {
            let batch: [MQTTOutbox.Entry]
            do {
                batch = try outbox.pending(after: sentThrough, limit: settings.window - inflight.count)
            } catch {
                logger.error("mqtt outbox unreadable", metadata: ["error": "\(error)"])
                return
            }
            guard !batch.isEmpty else { return }
            for entry in batch {
                do {
                    let mid = try client.publish(MQTTMessage(topic: entry.topic, payload: entry.payload, qos: entry.qos))
                    inflight[mid] = entry.id
                    sentThrough = entry.id
                } catch {
                    // Lost the connection meanwhile: everything unacknowledged goes again on
                    // reconnect; until then, tried again after a while.
                    logger.debug("mqtt publish deferred", metadata: ["error": "\(error)"])
                    retryAt = elapsed() + settings.retryDelay
                    return
                }
            }
        }
    }

    private func flushAcks() {
        guard !acked.isEmpty else { return }
        do {
            try outbox.remove(acked)
            acked.removeAll(keepingCapacity: true)
            flushAcksAt = nil
        } catch {
            logger.error("mqtt outbox update failed", metadata: ["error": "\(error)"])
            flushAcksAt = elapsed() + settings.retryDelay
        }
    }

    // MARK: Client events

    func handle(_ event: MQTTEvent) async {
        defer { rearmIfEarlier() }
        switch event {
        case .connected:
            connected = true
            connectedAt = elapsed()
            inflight = [:]
            sentThrough = 0
            publishedNeighbours = nil
            // The neighbours go out at once (the other gateways' election needs them); the
            // outbox after the settle delay.
            nextElection = min(nextElection, elapsed())
            drain()
            counters.connects += 1
            logger.notice("mqtt connected", metadata: ["broker": "\(client.configuration.host):\(client.configuration.port)"])
            if problem != nil {
                problem = nil
                reportFault(nil)
            }
        case .refused(let reason):
            counters.refusals += 1
            noteProblem("the broker refused the connection: \(reason)")
        case .problem(let line):
            noteProblem(line)
        case .disconnected(let reason):
            if connected {
                counters.disconnects += 1
                logger.warning("mqtt connection lost", metadata: ["reason": "\(reason)"])
            }
            connected = false
            connectedAt = nil
            inflight = [:]
            sentThrough = 0
        case .published(let mid):
            if let id = inflight.removeValue(forKey: mid) {
                acked.append(id)
                counters.published += 1
                if acked.count >= 64 { flushAcks() } else if flushAcksAt == nil { flushAcksAt = elapsed() + settings.ackBatching }
                drain()
            }
        case .message(let message):
            await received(message)
        }
    }

    private func received(_ message: MQTTMessage) async {
        switch settings.topics.parse(message.topic) {
        case .frames(let from)?:
            guard from != me else {
                counters.echoes += 1
                return
            }
            counters.received += 1
            let frame: [UInt8]
            do {
                frame = try GatewayFramePayload.decode(message.payload)
            } catch {
                counters.dropped[error.reason, default: 0] += 1
                return
            }
            // Only the forwarder puts broker frames on its radio: two gateways of one mesh
            // injecting the same frame relay it at the same moment (same frame, same delay) and
            // the copies collide at the box they are for — every time, retries included.
            guard forwarder else {
                counters.standbyIn += 1
                return
            }
            switch await node.injectFromBridge(frame) {
            case .accepted:
                counters.injected += 1
                wake()
            case .duplicate: counters.duplicates += 1
            case .foreign: counters.dropped["foreign", default: 0] += 1
            case .forged: counters.dropped["forged", default: 0] += 1
            case .malformed: counters.dropped["malformed", default: 0] += 1
            case .expired: counters.dropped["expired", default: 0] += 1
            case .refused: counters.dropped["control_frame", default: 0] += 1
            case .failed: counters.dropped["store_failed", default: 0] += 1
            }
        case .state(let of)?:
            let text = String(decoding: message.payload, as: UTF8.self)
            election.noteState(of: of, online: text == "online")
            decide()
        case .mesh(let of)?:
            guard let neighbours = GatewayElection.decodeNeighbours(message.payload) else {
                counters.dropped["bad_presence", default: 0] += 1
                return
            }
            election.noteNeighbours(of: of, neighbours)
            decide()
        default:
            counters.dropped["unknown_topic", default: 0] += 1
        }
    }

    private func decide() {
        let now = election.isForwarder(myNeighbours: myNeighbours)
        if now != forwarder {
            forwarder = now
            logger.notice(now ? "this gateway forwards its mesh to the broker" : "another gateway of this mesh forwards; standing by")
        }
    }

    // MARK: Timers

    /// Does what is due — acknowledged rows to the store, the outbox after the settle delay or a
    /// deferred publish, the election, telemetry — and returns how long until the next deadline.
    @discardableResult
    func tick() async -> Duration {
        let t = elapsed()
        if let at = flushAcksAt, t >= at { flushAcks() }
        if let at = retryAt, t >= at { retryAt = nil }
        drain()
        if t >= nextElection {
            nextElection = t + settings.electionInterval
            myNeighbours = await node.neighbourIDs()
            decide()
            if connected, publishedNeighbours != myNeighbours {
                let message = MQTTMessage(topic: settings.topics.mesh(of: me), payload: GatewayElection.encodeNeighbours(myNeighbours), qos: 1, retain: true)
                if (try? client.publish(message)) != nil { publishedNeighbours = myNeighbours }
            }
            lastPublished = lastPublished.filter { t - $0.value < settings.publishedMemory }
        }
        if t >= nextTelemetry {
            nextTelemetry = t + settings.telemetryInterval
            if connected {
                let telemetry = await telemetryNow()
                if (try? client.publish(MQTTMessage(topic: settings.topics.telemetry(of: me), payload: telemetry.encoded(), qos: 0))) != nil {
                    counters.telemetry += 1
                }
            }
        }
        scheduled = nextDeadline()
        return max(.zero, scheduled - elapsed())
    }

    /// The earliest thing to do: the election, telemetry, and while they wait, the end of the
    /// settle delay, the acknowledgement batch, a deferred publish.
    private func nextDeadline() -> Duration {
        var deadline = min(nextElection, nextTelemetry)
        if connected, let since = connectedAt, since + settings.settle > elapsed() { deadline = min(deadline, since + settings.settle) }
        if let at = flushAcksAt { deadline = min(deadline, at) }
        if let at = retryAt { deadline = min(deadline, at) }
        return deadline
    }

    private func rearmIfEarlier() {
        let deadline = nextDeadline()
        guard deadline < scheduled else { return }
        scheduled = deadline
        rearm()
    }

    func telemetryNow() async -> GatewayTelemetry {
        let status = await node.status()
        let mesh = GatewayTelemetry.Mesh(
            neighbours: status.neighbours.count, airtimeUsedPercent: status.airtimeUsedPercent,
            channelUtilisationPercent: status.channelUtilisationPercent, heard: status.counters.heard,
            delivered: status.counters.delivered, forged: status.counters.forged, duplicates: status.counters.duplicates,
            outboxQueued: status.outbox.queued)
        let s = telemetrySources
        return GatewayTelemetry(box: s.boxID, node: GatewayTopics.nodeLevel(me), name: s.name, at: now(), forwarder: forwarder,
                                fix: s.fix(), sensors: s.sensors(), bottles: s.bottles(), mesh: mesh, faults: s.faults(), gateway: counters)
    }

    /// Logs a connection problem when it is new (libmosquitto retries every few seconds and
    /// says the same each time) and shows it in the box's faults until a connect works.
    private func noteProblem(_ text: String) {
        guard !connected, text != problem else { return }
        problem = text
        logger.warning("mqtt broker not reached", metadata: ["broker": "\(client.configuration.host):\(client.configuration.port)",
                                                              "problem": "\(text)"])
        reportFault(text)
    }

    func status() -> GatewayStatus {
        GatewayStatus(node: GatewayTopics.nodeLevel(me), network: settings.topics.network, prefix: settings.topics.prefix,
                      connected: connected, problem: problem, forwarder: forwarder,
                      gatewaysOnline: election.peers.filter(\.value.online).keys.map { GatewayTopics.nodeLevel($0) }.sorted(),
                      outboxQueued: (try? outbox.count()) ?? -1, outboxDropped: (try? outbox.dropped()) ?? -1,
                      inflight: inflight.count, counters: counters)
    }

    /// Before stopping: acknowledged rows leave the outbox.
    func finish() {
        flushAcks()
    }

    /// Ends the core's thread once the work queued on it ran, and waits until it has ended
    /// (the gateway service's shutdown, after ``finish()``).
    nonisolated func shutdown() async {
        await executor.stopAndJoin()
    }
}
