import DriftCore
import DriftSystem
import Foundation
import GNSS
import Hardware
import Logging
import ServiceLifecycle
import Synchronization

/// What the GPS LED, `driftd status` and the bottle conditions know of the receiver.
public final class GPSStatus: Sendable {
    public enum Reception: String, Codable, Sendable {
        /// No receiver answers (not configured, unplugged, silent).
        case absent
        /// NMEA arrives, no position fix yet.
        case searching
        /// A 2D or 3D fix.
        case fix
    }

    public struct Snapshot: Codable, Sendable, Equatable {
        public var reception: Reception
        public var latitude: Double?
        public var longitude: Double?
        public var mode: String?
        public var hdop: Double?
        public var at: Date?
        public var source: String
        /// The stable box position (robust average of good fixes), once established.
        public var stableLatitude: Double?
        public var stableLongitude: Double?
        /// Median distance of the good fixes from the stable position, metres.
        public var stableSpreadM: Double?
        /// Good fixes the stable position is averaged from.
        public var stableFixes: Int?
        /// The receiver's power saving (beacon profile): asleep, checking or tracking.
        public var power: GPSPowerSaver.Snapshot?
    }

    private let state: Mutex<Snapshot>
    private let powerSaver = Mutex<GPSPowerSaver?>(nil)
    private let receptionObservers = Mutex<[@Sendable () -> Void]>([])

    public init(source: String) {
        state = Mutex(Snapshot(reception: .absent, source: source))
    }

    public var snapshot: Snapshot {
        var snapshot = state.withLock { $0 }
        snapshot.power = powerSaver.withLock { $0 }?.snapshot
        return snapshot
    }

    /// Shows `saver`'s state in ``snapshot``.
    func attach(_ saver: GPSPowerSaver) {
        powerSaver.withLock { $0 = saver }
    }

    /// Calls `observer` (on the updater's thread, outside the lock) whenever the reception
    /// changes (absent, searching, fix): the GPS LED follows it without polling.
    public func observeReception(_ observer: @escaping @Sendable () -> Void) {
        receptionObservers.withLock { $0.append(observer) }
    }

    func update(_ body: (inout Snapshot) -> Void) {
        let changed = state.withLock { snapshot in
            let before = snapshot.reception
            body(&snapshot)
            return snapshot.reception != before
        }
        if changed {
            for observer in receptionObservers.withLock({ $0 }) { observer() }
        }
    }
}

/// Reads the box's GPS receiver: NMEA from a serial port (libserialport or
/// termios, per the foundation; baud 0 detects the rate with ``BaudDetector``),
/// gpsd's JSON socket, or the simulated receiver on the sim board. Sentences go
/// through the same framer, parser and epoch assembler as `driftd nmea decode`;
/// each epoch's fix is published to the lifecycle processor (position
/// conditions) and to ``GPSStatus`` — with the stable box position
/// (``GNSS/StablePosition``) in place of the fix's once it is established — and
/// offered to the ``GPSTimeSource``.
///
/// A port that cannot be opened, a far end that closes (unplugged USB
/// receiver), a receiver that stays silent for `silenceLimit`, and an absent
/// or silent gpsd are `gps` faults; the source is reopened with back-off (2 s
/// doubling to 60 s). Nothing here is fatal.
public struct GPSService: Service {
    public static let component = "gps"

    /// Where the bytes come from.
    public enum Source: Sendable {
        /// A serial device at a baud rate; 0 detects the rate (``BaudDetector``).
        case serial(path: String, baud: Int)
        /// A byte stream made in-process (the simulated receiver).
        case stream(@Sendable () -> AsyncStream<[UInt8]>)
        /// A running gpsd's JSON socket (`TPV`/`SKY` reports).
        case gpsd(host: String, port: Int)
    }

    let source: Source
    let ambient: AsyncStream<AmbientInput>.Continuation
    /// Holds states back from the bottle processor while no bottle reads them (``AmbientGate``).
    let gate: AmbientGate?
    let status: GPSStatus
    let health: HealthRegistry
    let logger: Logger
    let silenceLimit: Duration
    let stable: StablePositionTracker
    let timeSource: GPSTimeSource?
    let baudDetector: BaudDetector
    /// Connecting to gpsd (name lookup, then a connect that may wait up to 5 s) happens here, off the pool.
    private let connector = BlockingLane(name: "gpsd-connect")
    /// The rate detection found last (tried first after a replug).
    let detectedBaud = DetectedBaud()
    /// Sleeps the receiver between position checks (beacon profile, serial receivers only).
    let powerSaver: GPSPowerSaver?

    /// - Parameter stablePosition: quality gates and moved rule of the stable box position
    ///   (`gps.max_hdop`, `gps.max_fix_age_s`, `gps.moved_threshold_m`).
    public init(
        source: Source, ambient: AsyncStream<AmbientInput>.Continuation, status: GPSStatus,
        health: HealthRegistry, logger: Logger, silenceLimit: Duration = .seconds(10),
        stablePosition: StablePosition.Settings = StablePosition.Settings(), timeSource: GPSTimeSource? = nil,
        baudDetector: BaudDetector = BaudDetector(), powerSaver: GPSPowerSaver? = nil, gate: AmbientGate? = nil
    ) {
        self.gate = gate
        self.powerSaver = powerSaver
        if let powerSaver { status.attach(powerSaver) }
        self.baudDetector = baudDetector
        self.timeSource = timeSource
        self.source = source
        self.ambient = ambient
        self.status = status
        self.health = health
        self.logger = logger
        self.silenceLimit = silenceLimit
        stable = StablePositionTracker(settings: stablePosition)
        health.register(Self.component, maximumSilence: nil)
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                guard let powerSaver else { return try await readLoop() }
                // The power saver writes the receiver's commands while the loop reads it.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await powerSaver.run() }
                    group.addTask { try await readLoop() }
                    defer { group.cancelAll() }
                    _ = try await group.next()
                }
            }
        } catch is CancellationError {}
    }

    private func readLoop() async throws {
        var delay = Duration.seconds(2)
        while true {
            let listeningSince = Date()
            var decoder = Decoder(listeningSince: listeningSince)
            let problem: String
            switch source {
            case .stream(let make):
                for await chunk in make() {
                    try Task.checkCancellation()
                    decoder.feed(chunk, service: self)
                }
                problem = "simulated receiver stopped"
            case .serial(let path, let baud):
                problem = await readSerial(path: path, baud: baud, decoder: &decoder)
            case .gpsd(let host, let port):
                problem = await readGPSD(host: host, port: port, listeningSince: listeningSince)
            }
            try Task.checkCancellation()
            markAbsent(problem)
            try await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(60))
        }
    }

    /// Reads until the port fails or falls silent; returns why it stopped.
    private func readSerial(path: String, baud: Int, decoder: inout Decoder) async -> String {
        let port: any SerialPort
        if baud == 0 {
            do {
                let detected = try await baudDetector.detect(path: path, preferred: detectedBaud.value) { rate in
                    try SerialPorts.open(path: path, settings: SerialSettings(baudRate: rate), logger: logger)
                }
                port = detected.port
                detectedBaud.value = detected.baud
                logger.notice("GPS baud rate detected", metadata: ["port": "\(path)", "baud": "\(detected.baud)"])
                decoder.feed(detected.bytes, service: self)
            } catch is CancellationError {
                return "stopped"
            } catch {
                return "\(error)"
            }
        } else {
            do {
                port = try SerialPorts.open(path: path, settings: SerialSettings(baudRate: baud), logger: logger)
            } catch {
                return "cannot open \(path): \(error)"
            }
        }
        powerSaver?.attach(port)
        defer {
            powerSaver?.attach(nil)
            port.close()
        }
        logger.info("GPS port open", metadata: ["port": "\(path)", "baud": "\(port.settings.baudRate)", "backend": "\(port.backend)"])
        while !Task.isCancelled {
            do {
                // A receiver put to sleep is silent on purpose: no fault, and a wake-up a minute
                // at most (its own wake-up ends this read as soon as it talks again).
                // A settled receiver fixes once per its slow interval: the limit stretches by it.
                let asleep = powerSaver?.isAsleep == true
                let limit = silenceLimit + max(.zero, (powerSaver?.fixInterval ?? GPSPowerSchedule.trackingInterval) - GPSPowerSchedule.trackingInterval)
                let bytes = try await port.read(upTo: 1024, timeout: asleep ? .seconds(60) : limit)
                if bytes.isEmpty {
                    if asleep || powerSaver?.isAsleep == true { continue }
                    return "receiver on \(path) silent for \(limit)"
                }
                decoder.feed(bytes, service: self)
            } catch {
                return "\(path): \(error)"
            }
        }
        return "stopped"
    }

    /// Reads gpsd's reports until the connection fails or no `TPV` comes for `silenceLimit`
    /// (gpsd without a receiver greets and then says nothing); returns why it stopped.
    private func readGPSD(host: String, port: Int, listeningSince: Date) async -> String {
        let address = "\(host):\(port)"
        let socket: FileDescriptor
        do {
            socket = try await connector.run { try TCPSocket.connect(host: host, port: port) }
        } catch {
            return "cannot connect to gpsd at \(address): \(error)"
        }
        let monitor = ReadinessMonitor(descriptor: socket, label: "drift.gpsd")
        defer {
            monitor.close()
            try? socket.close()
        }
        do {
            try UnixSocket.sendAll(socket, Array(GPSDWatch.command.utf8))
        } catch {
            return "gpsd at \(address): \(error)"
        }
        logger.info("connected to gpsd", metadata: ["address": "\(address)"])
        var lines = GPSDLineReader()
        var sky = SkyView()
        var heardAnything = false
        var lastReport = ContinuousClock.now
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !Task.isCancelled {
            let remaining = silenceLimit - (ContinuousClock.now - lastReport)
            do {
                guard remaining > .zero, try await monitor.readable(timeout: remaining) else {
                    return heardAnything ? "gpsd at \(address) sent no fix report for \(silenceLimit)"
                        : "gpsd at \(address) reports no receiver (silent for \(silenceLimit))"
                }
                let count = try buffer.withUnsafeMutableBytes { raw throws(SystemError) in try socket.read(into: raw) }
                guard let count else { continue }
                if count == 0 { return "gpsd at \(address) closed the connection" }
                for line in lines.push(buffer[0..<count]) {
                    guard let report = try? GPSDReport.parse(line) else { continue }
                    switch report {
                    case .sky(let view):
                        sky = view
                    case .tpv(let fix):
                        lastReport = ContinuousClock.now
                        if !heardAnything {
                            heardAnything = true
                            heard(listeningSince: listeningSince)
                        }
                        publish(GNSSEpoch(timeOfDay: fix.time?.timeOfDay, fix: fix, sky: sky, sentenceCount: 0), listeningSince: listeningSince)
                    case .version(let release):
                        logger.debug("gpsd greets", metadata: ["release": "\(release)"])
                    case .devices, .other:
                        break
                    }
                }
            } catch is CancellationError {
                return "stopped"
            } catch {
                return "gpsd at \(address): \(error)"
            }
        }
        return "stopped"
    }

    /// Sends `state` to the bottle processor, unless the gate holds it back.
    fileprivate func publish(_ state: GPSState) {
        if gate?.admit(state) ?? true { ambient.yield(.gps(state)) }
    }

    private func markAbsent(_ problem: String) {
        let wasPresent = status.snapshot.reception != .absent || health.evaluate().faults[Self.component] == nil
        status.update { $0.reception = .absent }
        publish(GPSState(receiverPresent: false))
        health.setFault(Self.component, problem)
        if wasPresent { logger.error("GPS receiver lost", metadata: ["reason": "\(problem)"]) }
    }

    /// Framer, parser and epoch assembly for one connection.
    struct Decoder {
        var framer = NMEAFramer()
        var decoder = NMEADecoder(echo: false)
        let listeningSince: Date
        var heardAnything = false

        mutating func feed(_ bytes: [UInt8], service: GPSService) {
            for sentence in framer.push(bytes) {
                service.powerSaver?.heard(sentence)
                if !heardAnything {
                    heardAnything = true
                    service.heard(listeningSince: listeningSince)
                }
                if let epoch = decoder.consume(sentence) {
                    service.publish(epoch, listeningSince: listeningSince)
                }
            }
        }
    }

    fileprivate func heard(listeningSince: Date) {
        health.setFault(Self.component, nil)
        status.update { if $0.reception == .absent { $0.reception = .searching } }
        publish(GPSState(receiverPresent: true, listeningSince: listeningSince))
        logger.info("GPS receiver answers")
    }

    /// Publishes an epoch's fix. Once the stable box position is established, the published
    /// position is the stable one (mode, HDOP and time stay the fix's, so the quality and age
    /// gates of the conditions still apply to the receiver's current state).
    fileprivate func publish(_ epoch: GNSSEpoch, listeningSince: Date) {
        let fix = epoch.fix
        let now = Date()
        timeSource?.offer(fix, receivedAt: now)
        guard fix.mode >= .twoD, let latitude = fix.latitude, let longitude = fix.longitude,
              let point = try? GeoPoint(latitude: latitude, longitude: longitude)
        else {
            status.update { $0.reception = .searching }
            return
        }
        var estimate: StablePosition.Estimate?
        var good = false
        if let sample = StablePosition.Sample(epoch: epoch, time: now) {
            let (event, current, accepted) = stable.add(sample, now: now)
            estimate = current
            good = accepted
            switch event {
            case .established(let estimate)?:
                logger.notice("stable box position established", metadata: [
                    "lat": "\(estimate.latitude)", "lon": "\(estimate.longitude)",
                    "spread_m": "\(Int(estimate.spread.rounded()))", "fixes": "\(estimate.fixCount)",
                ])
            case .moved(let from, let to, let distance)?:
                logger.warning("box moved: stable position restarts at the new place", metadata: [
                    "from_lat": "\(from.latitude)", "from_lon": "\(from.longitude)",
                    "to_lat": "\(to.latitude)", "to_lon": "\(to.longitude)", "distance_m": "\(Int(distance.rounded()))",
                ])
            case nil:
                break
            }
        }
        if let powerSaver {
            powerSaver.setEstablished(estimate != nil)
            powerSaver.fix(good: good, established: estimate != nil)
        }
        let stablePoint = estimate.flatMap { try? GeoPoint(latitude: $0.latitude, longitude: $0.longitude) }
        let position = PositionFix(position: stablePoint ?? point, mode: fix.mode == .threeD ? .threeD : .twoD,
                                   hdop: epoch.sky.hdop, time: now)
        status.update {
            $0.reception = .fix
            $0.latitude = latitude
            $0.longitude = longitude
            $0.mode = position.mode.rawValue
            $0.hdop = epoch.sky.hdop
            $0.at = now
            $0.stableLatitude = estimate?.latitude
            $0.stableLongitude = estimate?.longitude
            $0.stableSpreadM = estimate?.spread
            $0.stableFixes = estimate?.fixCount
        }
        publish(GPSState(receiverPresent: true, listeningSince: listeningSince, lastFix: position))
    }
}

/// The last detected baud rate, shared by the service's connections.
final class DetectedBaud: Sendable {
    private let state = Mutex<Int?>(nil)
    var value: Int? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

/// The stable box position, shared by the service's connections (a replugged receiver is
/// the same box at the same place).
final class StablePositionTracker: Sendable {
    private let state: Mutex<StablePosition>

    init(settings: StablePosition.Settings) {
        state = Mutex(StablePosition(settings: settings))
    }

    /// Adds a fix; returns what changed, the estimate after it, and whether the fix passed the
    /// quality gates.
    func add(_ sample: StablePosition.Sample, now: Date) -> (StablePosition.Event?, StablePosition.Estimate?, Bool) {
        state.withLock { stable in
            let accepted = stable.check(sample, now: now) == nil
            let event = stable.add(sample, now: now)
            return (event, stable.estimate, accepted)
        }
    }

    var estimate: StablePosition.Estimate? { state.withLock { $0.estimate } }
}
