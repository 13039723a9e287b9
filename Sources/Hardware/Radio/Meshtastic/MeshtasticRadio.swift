import Logging
import Synchronization

/// A Meshtastic node on USB serial used as the box's LoRa radio.
///
/// Our mesh frames ride Meshtastic packets: broadcast, on the configured channel, port
/// `PRIVATE_APP` (256), with Meshtastic's own hop limit, so the Meshtastic mesh does the
/// relaying (the Drift mesh on this radio must use hop limit 0 and keeps only its dedup
/// and store-and-forward). The node's modem preset decides the real airtime.
///
/// Life cycle: ``run()`` is the connection loop, run by its owner in its own task (the mesh
/// service runs it beside its receive and schedule loops) — open the port
/// (finding it by USB id when the path is `auto`), send the wake-up bytes, run the
/// `want_config_id` handshake, then read packets and queue status; every 5 minutes a
/// heartbeat. A port that disappears, a node that announces `rebooted`, or a handshake
/// that times out closes the port and starts again after a back-off (doubling up to
/// ``Configuration/maximumReconnectDelay``). ``transmit(_:airtime:)`` waits for a
/// finished handshake and for room in the node's queue. ``close()`` ends ``run()``, which
/// then says goodbye to the node and lets go of the port; the initialiser starts nothing.
public final class MeshtasticRadio: MeshRadio, Sendable {
    /// How to reach and use the node.
    public struct Configuration: Sendable {
        /// Device path, or `auto` to find the node by USB id (``MeshtasticPortFinder``).
        public var path: String
        public var baud: Int
        /// The channel index (0–7) our frames ride.
        public var channel: UInt32
        /// Meshtastic's hop limit for our frames (0–7).
        public var hopLimit: UInt32
        /// The channel for ``publishText(_:)``; `nil` = do not publish.
        public var textChannel: UInt32?
        /// How long the node may take to finish the handshake.
        public var handshakeTimeout: Duration
        public var heartbeatInterval: Duration
        /// The pause after the wake-up bytes.
        public var wakeDelay: Duration
        /// First and largest wait between connection attempts.
        public var reconnectDelay: Duration
        public var maximumReconnectDelay: Duration
        /// How long a transmission waits for a connected node, and for queue room.
        public var connectWait: Duration
        public var queueWait: Duration

        public init(
            path: String, baud: Int = 115_200, channel: UInt32 = 0, hopLimit: UInt32 = 3, textChannel: UInt32? = 0,
            handshakeTimeout: Duration = .seconds(20), heartbeatInterval: Duration = .seconds(300),
            wakeDelay: Duration = .milliseconds(100), reconnectDelay: Duration = .seconds(1),
            maximumReconnectDelay: Duration = .seconds(60), connectWait: Duration = .seconds(30), queueWait: Duration = .seconds(30)
        ) {
            self.path = path
            self.baud = baud
            self.channel = channel
            self.hopLimit = hopLimit
            self.textChannel = textChannel
            self.handshakeTimeout = handshakeTimeout
            self.heartbeatInterval = heartbeatInterval
            self.wakeDelay = wakeDelay
            self.reconnectDelay = reconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
            self.connectWait = connectWait
            self.queueWait = queueWait
        }
    }

    /// What the handshake told about the node.
    public struct Node: Sendable, Equatable {
        /// `MyNodeInfo.my_node_num`.
        public var number: UInt32
        /// `DeviceMetadata.firmware_version` (`""` when the node sent no metadata).
        public var firmwareVersion: String
        /// The channels the node reported, by index.
        public var channels: [MeshtasticChannel]
        /// The node's LoRa config, when it sent it.
        public var lora: MeshtasticLoRaConfig?
        /// How many `node_info` entries (the node's database) arrived.
        public var knownNodes: Int
        /// The port the node answered on.
        public var path: String

        /// Meshtastic's way of printing a node number: `!` and eight hex digits.
        public var id: String {
            let digits = String(number, radix: 16)
            return "!" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
        }
    }

    /// What happened, for `driftd status` and tests.
    public struct Counters: Sendable, Equatable {
        /// Our frames handed to the node, and frames received on port 256.
        public var framesSent = 0
        public var framesReceived = 0
        public var textsSent = 0
        /// Packets on other ports or channels, or our own echoed back (ignored).
        public var otherPackets = 0
        /// Frames that did not decode as `FromRadio`.
        public var malformed = 0
        public var logLines = 0
        /// Frame headers with a length over 512.
        public var badLengths = 0
        public var heartbeats = 0
        public var handshakes = 0
        public var handshakeTimeouts = 0
        public var reboots = 0
        /// Port openings that failed or connections that ended.
        public var connectionFailures = 0
        /// Transmissions that waited for queue room, and those that gave up waiting and sent anyway.
        public var queueWaits = 0
        public var queueWaitTimeouts = 0
        /// Receptions dropped because nobody called ``receive()`` for a long time.
        public var receptionsDropped = 0
    }

    /// Opens a serial port; tests and the daemon use ``SerialPorts/open(path:settings:logger:)``.
    public typealias PortOpener = @Sendable (_ path: String, _ settings: SerialSettings) throws -> any SerialPort
    /// Lists serial ports for `auto`.
    public typealias PortLister = @Sendable () throws -> [SerialPortInfo]

    public let configuration: Configuration
    /// `Data.payload` holds at most `DATA_PAYLOAD_LEN` = 233 bytes (mesh.proto `Constants`).
    public let maximumFrameBytes = MeshtasticData.maximumPayloadBytes

    private enum Phase: Sendable, Equatable {
        case connecting
        case handshaking
        case connected
        case closed
    }

    private struct State: Sendable {
        var phase = Phase.connecting
        var port: (any SerialPort)?
        var node: Node?
        var queueFree: UInt32?
        var counters = Counters()
        var lastProblem: String?
        var receptions: [RadioReception] = []
        var receiver: CheckedContinuation<RadioReception?, any Error>?
        var logTail: [String] = []
        /// ``run()`` was called (it runs once).
        var running = false
    }

    private let state = Mutex(State())
    private let changed = MeshtasticSignal()
    /// Finished by ``close()``: ends ``run()``.
    private let closing: AsyncStream<Void>
    private let closed: AsyncStream<Void>.Continuation
    private let opener: PortOpener
    private let lister: PortLister
    private let clock: any Clock<Duration>
    private let logger: Logger
    /// Receptions kept while no one receives.
    private static let receptionBacklog = 256
    private static let logTailLines = 50

    /// A radio that connects once ``run()`` runs.
    /// - Parameters:
    ///   - opener: opens the port (default: ``SerialPorts/open(path:settings:logger:)``).
    ///   - lister: lists ports for `auto` (default: ``SerialPorts/list()``).
    ///   - clock: for heartbeats, back-off, waits and each transmission's airtime.
    public init(
        configuration: Configuration, logger: Logger = Logger(label: "drift.radio.meshtastic"),
        clock: any Clock<Duration> = ContinuousClock(),
        opener: PortOpener? = nil, lister: PortLister? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        self.opener = opener ?? { path, settings in try SerialPorts.open(path: path, settings: settings, logger: logger) }
        self.lister = lister ?? { try SerialPorts.list() }
        (closing, closed) = AsyncStream.makeStream()
    }

    // MARK: - Public

    /// The node as of the last finished handshake; `nil` before the first.
    public var node: Node? { state.withLock { $0.node } }

    /// Whether a handshake has finished on the current connection.
    public var isConnected: Bool { state.withLock { $0.phase == .connected } }

    /// Whether a ``receive()`` is parked, waiting for a packet (what a test acting on a waiting
    /// receive checks).
    public var isReceiving: Bool { state.withLock { $0.receiver != nil } }

    public var counters: Counters { state.withLock { $0.counters } }

    /// Room in the node's transmit queue as last reported (`QueueStatus.free`, minus
    /// what we sent since); `nil` until the node reported it on this connection.
    public var nodeQueueFree: UInt32? { state.withLock { $0.queueFree } }

    /// The last lines of the node's debug log (bytes outside frames and `log_record`s).
    public var recentLogLines: [String] { state.withLock { $0.logTail } }

    /// Waits until a handshake has finished and returns the node.
    /// - Throws: ``MeshtasticError/notConnected(path:lastProblem:)`` after `timeout`, ``MeshtasticError/closed``.
    public func connectedNode(within timeout: Duration) async throws(MeshtasticError) -> Node {
        let remainingTime = Self.countdown(clock, from: timeout)
        while true {
            let generation = changed.generation
            let (phase, node, problem) = state.withLock { ($0.phase, $0.node, $0.lastProblem) }
            if phase == .closed { throw .closed }
            if phase == .connected, let node { return node }
            let remaining = remainingTime()
            if remaining <= .zero || Task.isCancelled { throw .notConnected(path: configuration.path, lastProblem: problem) }
            await changed.wait(since: generation, timeout: remaining, clock: clock)
        }
    }

    public func transmit(_ frame: [UInt8], airtime: Duration) async throws {
        guard frame.count <= maximumFrameBytes else { throw MeshtasticError.frameTooLarge(count: frame.count, limit: maximumFrameBytes) }
        try await send(MeshtasticData(portnum: MeshtasticData.Port.privateApp, payload: frame), channel: configuration.channel)
        state.withLock { $0.counters.framesSent += 1 }
        // The node sends it when its own queue and duty cycle allow; pacing by our frame's
        // airtime keeps the node's queue short and our budget's accounting honest.
        try await clock.sleep(for: airtime)
    }

    /// Sends `text` as a `TEXT_MESSAGE_APP` broadcast on `channel`, so stock Meshtastic
    /// apps show it. Longer than 233 UTF-8 bytes is cut at a character boundary.
    public func sendText(_ text: String, channel: UInt32) async throws {
        var bytes = Array(text.utf8)
        if bytes.count > maximumFrameBytes {
            var cut = maximumFrameBytes
            while cut > 0, bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
            bytes = Array(bytes[..<cut])
        }
        try await send(MeshtasticData(portnum: MeshtasticData.Port.textMessage, payload: bytes), channel: channel)
        state.withLock { $0.counters.textsSent += 1 }
    }

    /// Publishes a line (camp beacon, bottle notice) on ``Configuration/textChannel``.
    /// - Returns: `false` when publishing is off (`meshtastic.text_channel = -1`).
    @discardableResult
    public func publishText(_ text: String) async throws -> Bool {
        guard let channel = configuration.textChannel else { return false }
        try await sendText(text, channel: channel)
        return true
    }

    public func receive() async throws -> RadioReception? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RadioReception?, any Error>) in
                let immediate = state.withLock { state -> Result<RadioReception?, any Error>? in
                    if !state.receptions.isEmpty { return .success(state.receptions.removeFirst()) }
                    if state.phase == .closed { return .success(nil) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    precondition(state.receiver == nil, "MeshtasticRadio.receive(): one receiving task at a time")
                    state.receiver = continuation
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<RadioReception?, any Error>? in
                defer { state.receiver = nil }
                return state.receiver
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Ends ``run()`` (which says goodbye to the node and closes the port); a pending
    /// ``receive()`` returns `nil`, transmissions fail with ``MeshtasticError/closed``.
    public func close() {
        let receiver = state.withLock { state -> CheckedContinuation<RadioReception?, any Error>? in
            state.phase = .closed
            defer { state.receiver = nil }
            return state.receiver
        }
        closed.finish()
        receiver?.resume(returning: nil)
        changed.signal()
    }

    // MARK: - Sending

    private func send(_ data: MeshtasticData, channel: UInt32) async throws {
        let port = try await connectedPort()
        try await waitForQueueRoom()
        let packet = MeshtasticMeshPacket(
            to: MeshtasticMeshPacket.broadcast, channel: channel, decoded: data, id: UInt32.random(in: 1...UInt32.max),
            hopLimit: configuration.hopLimit, wantAck: false)
        state.withLock { state in
            if let free = state.queueFree { state.queueFree = free > 0 ? free - 1 : 0 }
        }
        try await port.write(try MeshtasticFraming.frame(MeshtasticToRadio.packet(packet).encoded()))
    }

    private func connectedPort() async throws -> any SerialPort {
        _ = try await connectedNode(within: configuration.connectWait)
        guard let port = state.withLock({ $0.phase == .connected ? $0.port : nil }) else {
            throw MeshtasticError.notConnected(path: configuration.path, lastProblem: state.withLock { $0.lastProblem })
        }
        return port
    }

    /// Waits while the node reported a full queue (`QueueStatus.free == 0`), at most
    /// ``Configuration/queueWait``; then sends anyway (the node drops what it cannot queue).
    private func waitForQueueRoom() async throws {
        let remainingTime = Self.countdown(clock, from: configuration.queueWait)
        var waited = false
        while true {
            let generation = changed.generation
            let (free, phase) = state.withLock { ($0.queueFree, $0.phase) }
            if phase == .closed { throw MeshtasticError.closed }
            if free != 0 { break }
            if !waited {
                waited = true
                state.withLock { $0.counters.queueWaits += 1 }
            }
            let remaining = remainingTime()
            if remaining <= .zero {
                state.withLock { $0.counters.queueWaitTimeouts += 1 }
                logger.warning("the Meshtastic node's queue stayed full; sending anyway", metadata: ["waited": "\(configuration.queueWait)"])
                break
            }
            try Task.checkCancellation()
            await changed.wait(since: generation, timeout: remaining, clock: clock)
        }
    }

    /// A function telling how much of `duration` is left on `clock`, from now.
    private static func countdown<C: Clock>(_ clock: C, from duration: Duration) -> @Sendable () -> Duration where C.Duration == Duration {
        let end = clock.now.advanced(by: duration)
        return { clock.now.duration(to: end) }
    }

    // MARK: - Connection loop

    private var isClosed: Bool { state.withLock { $0.phase == .closed } }

    /// The connection loop, until ``close()``: connect, handshake, read; on failure a
    /// back-off and again. Then a goodbye to the node (best effort) and the port closed.
    /// Runs once; a second call, or a call after ``close()``, returns at once.
    public func run() async {
        let first = state.withLock { state -> Bool in
            guard !state.running, state.phase != .closed else { return false }
            state.running = true
            return true
        }
        guard first else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.connectionLoop() }
            group.addTask { for await _ in self.closing {} }
            await group.next()
            group.cancelAll()
        }
        // The loop leaves the port of a closed radio here, for the goodbye.
        let port = state.withLock { state -> (any SerialPort)? in
            defer { state.port = nil }
            return state.port
        }
        if let port {
            let goodbye = (try? MeshtasticFraming.frame(MeshtasticToRadio.disconnect.encoded())) ?? []
            try? await port.write(goodbye, timeout: .milliseconds(200))
            port.close()
        }
    }

    private func connectionLoop() async {
        var delay = configuration.reconnectDelay
        while !isClosed, !Task.isCancelled {
            var handshook = false
            do {
                let path = try resolvePath()
                let port = try opener(path, SerialSettings(baudRate: configuration.baud))
                let kept = state.withLock { state -> Bool in
                    guard state.phase != .closed else { return false }
                    state.port = port
                    state.phase = .handshaking
                    state.queueFree = nil
                    return true
                }
                guard kept else {
                    port.close()
                    return
                }
                changed.signal()
                handshook = try await session(port: port, path: path)
            } catch {
                record(error)
            }
            let port = state.withLock { state -> (any SerialPort)? in
                if state.phase == .closed { return nil }  // run() says goodbye, then closes it
                defer { state.port = nil }
                state.phase = .connecting
                return state.port
            }
            port?.close()
            changed.signal()
            if isClosed || Task.isCancelled { break }
            if handshook { delay = configuration.reconnectDelay }
            do {
                try await clock.sleep(for: delay)
            } catch {
                break
            }
            delay = min(delay * 2, configuration.maximumReconnectDelay)
        }
    }

    private func record(_ error: any Error) {
        if error is CancellationError || isClosed { return }
        let text = "\(error)"
        state.withLock { state in
            state.lastProblem = text
            state.counters.connectionFailures += 1
            if let problem = error as? MeshtasticError, case .handshakeTimeout = problem { state.counters.handshakeTimeouts += 1 }
        }
        logger.warning("Meshtastic node connection ended", metadata: ["path": "\(configuration.path)", "problem": "\(text)"])
    }

    private func resolvePath() throws -> String {
        guard configuration.path == "auto" else { return configuration.path }
        let ports = try lister()
        guard let found = MeshtasticPortFinder.find(in: ports) else {
            throw MeshtasticError.noNodeFound(ports: ports.map { port in port.path + (port.usbID.map { " (\($0))" } ?? "") })
        }
        return found.path
    }

    /// One connection: wake-up, handshake, then packets until the port fails or the
    /// node reboots (always ends by throwing). Reports through `handshook` whether the
    /// handshake finished, so the caller resets its back-off.
    private func session(port: any SerialPort, path: String) async throws -> Bool {
        try await port.write(MeshtasticFraming.wakeSequence)
        try await clock.sleep(for: configuration.wakeDelay)
        let nonce = UInt32.random(in: 1...UInt32.max)
        try await port.write(try MeshtasticFraming.frame(MeshtasticToRadio.wantConfigID(nonce).encoded()))
        logger.debug("Meshtastic handshake started", metadata: ["path": "\(path)", "nonce": "\(nonce)"])

        var pending = Node(number: 0, firmwareVersion: "", channels: [], lora: nil, knownNodes: 0, path: path)
        var decoder = MeshtasticFrameDecoder()
        var heartbeat: Task<Void, Never>?
        defer { heartbeat?.cancel() }
        // The handshake's time limit runs on the injected clock: a watchdog closes the
        // port when it expires first, which ends the read below.
        let outcome = HandshakeOutcome()
        let watchdog = Task { [clock, limit = configuration.handshakeTimeout] in
            do {
                try await clock.sleep(for: limit)
            } catch {
                return
            }
            if outcome.settle(.timedOut) { port.close() }
        }
        defer { watchdog.cancel() }
        var connected = false
        do {
            while true {
                let bytes: [UInt8]
                do {
                    bytes = try await port.read(upTo: 1_024, timeout: nil)
                } catch {
                    if outcome.current == .timedOut {
                        throw MeshtasticError.handshakeTimeout(path: path, after: configuration.handshakeTimeout)
                    }
                    throw error
                }
                let before = (decoder.logLines, decoder.badLengths)
                for event in decoder.push(bytes) {
                    switch event {
                    case .logLine(let line):
                        noteLog(line)
                    case .frame(let raw):
                        guard let message = try? MeshtasticFromRadio(decoding: raw) else {
                            state.withLock { $0.counters.malformed += 1 }
                            continue
                        }
                        if try handle(message, nonce: nonce, pending: &pending, outcome: outcome) {
                            connected = true
                            watchdog.cancel()
                            heartbeat = startHeartbeat(port: port)
                        }
                    }
                }
                let after = (decoder.logLines, decoder.badLengths)
                if after != before {
                    state.withLock { state in
                        state.counters.logLines += after.0 - before.0
                        state.counters.badLengths += after.1 - before.1
                    }
                }
            }
        } catch {
            if connected {
                // The caller resets its back-off after a connection that had worked.
                record(error)
                return true
            }
            throw error
        }
    }

    /// Handles one message; returns `true` when it completed the handshake.
    private func handle(_ message: MeshtasticFromRadio, nonce: UInt32, pending: inout Node, outcome: HandshakeOutcome) throws -> Bool {
        switch message.variant {
        case .myInfo(let info):
            pending.number = info.myNodeNum
        case .metadata(let metadata):
            pending.firmwareVersion = metadata.firmwareVersion
        case .channel(let channel):
            pending.channels.removeAll { $0.index == channel.index }
            pending.channels.append(channel)
            pending.channels.sort { $0.index < $1.index }
        case .config(let lora?):
            pending.lora = lora
        case .nodeInfo:
            pending.knownNodes += 1
        case .configCompleteID(let id):
            // A stale nonce (an earlier attempt's answer) is ignored; so is an answer
            // that comes after the watchdog gave up.
            guard id == nonce, outcome.settle(.completed) else { return false }
            let node = pending
            state.withLock { state in
                guard state.phase != .closed else { return }
                state.phase = .connected
                state.node = node
                state.lastProblem = nil
                state.counters.handshakes += 1
            }
            changed.signal()
            logger.info("Meshtastic node connected", metadata: [
                "node": "\(node.id)", "firmware": "\(node.firmwareVersion)", "path": "\(node.path)",
                "channels": "\(node.channels.filter { $0.role != .disabled }.map { "\($0.index):\($0.name)" })",
            ])
            return true
        case .rebooted:
            state.withLock { $0.counters.reboots += 1 }
            throw MeshtasticError.nodeRebooted(path: pending.path)
        case .queueStatus(let status):
            state.withLock { $0.queueFree = status.free }
            changed.signal()
        case .packet(let packet):
            deliver(packet, myNumber: pending.number)
        case .logRecord(let line):
            noteLog(line)
        case .config(nil), .other, nil:
            break
        }
        return false
    }

    private func deliver(_ packet: MeshtasticMeshPacket, myNumber: UInt32) {
        guard let data = packet.decoded, data.portnum == MeshtasticData.Port.privateApp,
              packet.channel == configuration.channel, packet.from != myNumber || myNumber == 0
        else {
            state.withLock { $0.counters.otherPackets += 1 }
            return
        }
        let reception = RadioReception(bytes: data.payload, rssi: Double(packet.rxRSSI), snr: Double(packet.rxSNR))
        let receiver = state.withLock { state -> CheckedContinuation<RadioReception?, any Error>? in
            state.counters.framesReceived += 1
            if let receiver = state.receiver {
                state.receiver = nil
                return receiver
            }
            if state.receptions.count >= Self.receptionBacklog {
                state.receptions.removeFirst()
                state.counters.receptionsDropped += 1
            }
            state.receptions.append(reception)
            return nil
        }
        receiver?.resume(returning: reception)
    }

    private func noteLog(_ line: String) {
        logger.trace("meshtastic node log", metadata: ["line": "\(line)"])
        state.withLock { state in
            state.logTail.append(line)
            if state.logTail.count > Self.logTailLines { state.logTail.removeFirst(state.logTail.count - Self.logTailLines) }
        }
    }

    private func startHeartbeat(port: any SerialPort) -> Task<Void, Never> {
        Task { [self] in
            var nonce: UInt32 = 0
            while !Task.isCancelled {
                do {
                    try await clock.sleep(for: configuration.heartbeatInterval)
                    nonce &+= 1
                    try await port.write(try MeshtasticFraming.frame(MeshtasticToRadio.heartbeat(nonce: nonce).encoded()))
                    state.withLock { $0.counters.heartbeats += 1 }
                } catch {
                    return
                }
            }
        }
    }
}

/// Whether a handshake completed or timed out first (shared with its watchdog task).
private final class HandshakeOutcome: Sendable {
    enum Value: Sendable, Equatable {
        case pending
        case completed
        case timedOut
    }

    private let value = Mutex(Value.pending)

    var current: Value { value.withLock { $0 } }

    /// Moves from `pending` to `new`; returns whether this call decided the outcome.
    func settle(_ new: Value) -> Bool {
        value.withLock { value in
            guard value == .pending else { return false }
            value = new
            return true
        }
    }
}
