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
    }

    private let state: Mutex<Snapshot>

    public init(source: String) {
        state = Mutex(Snapshot(reception: .absent, source: source))
    }

    public var snapshot: Snapshot { state.withLock { $0 } }

    func update(_ body: (inout Snapshot) -> Void) {
        state.withLock { body(&$0) }
    }
}

/// Reads the box's GPS receiver: NMEA from a serial port (libserialport or
/// termios, per the foundation), or from the simulated receiver on the sim
/// board. Sentences go through the same framer, parser and epoch assembler as
/// `driftd nmea decode`; each epoch's fix is published to the lifecycle
/// processor (position conditions) and to ``GPSStatus``.
///
/// A port that cannot be opened, a far end that closes (unplugged USB
/// receiver) and a receiver that stays silent for `silenceLimit` are `gps`
/// faults; the port is reopened with back-off (2 s doubling to 60 s). Nothing
/// here is fatal.
public struct GPSService: Service {
    public static let component = "gps"

    /// Where the bytes come from.
    public enum Source: Sendable {
        /// A serial device at a baud rate.
        case serial(path: String, baud: Int)
        /// A byte stream made in-process (the simulated receiver).
        case stream(@Sendable () -> AsyncStream<[UInt8]>)
    }

    let source: Source
    let ambient: AsyncStream<AmbientInput>.Continuation
    let status: GPSStatus
    let health: HealthRegistry
    let logger: Logger
    let silenceLimit: Duration

    public init(
        source: Source, ambient: AsyncStream<AmbientInput>.Continuation, status: GPSStatus,
        health: HealthRegistry, logger: Logger, silenceLimit: Duration = .seconds(10)
    ) {
        self.source = source
        self.ambient = ambient
        self.status = status
        self.health = health
        self.logger = logger
        self.silenceLimit = silenceLimit
        health.register(Self.component, maximumSilence: nil)
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await readLoop() }
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
        do {
            port = try SerialPorts.open(path: path, settings: SerialSettings(baudRate: baud), logger: logger)
        } catch {
            return "cannot open \(path): \(error)"
        }
        defer { port.close() }
        logger.info("GPS port open", metadata: ["port": "\(path)", "baud": "\(baud)", "backend": "\(port.backend)"])
        while !Task.isCancelled {
            do {
                let bytes = try await port.read(upTo: 1024, timeout: silenceLimit)
                if bytes.isEmpty {
                    return "receiver on \(path) silent for \(silenceLimit)"
                }
                decoder.feed(bytes, service: self)
            } catch {
                return "\(path): \(error)"
            }
        }
        return "stopped"
    }

    private func markAbsent(_ problem: String) {
        let wasPresent = status.snapshot.reception != .absent || health.evaluate().faults[Self.component] == nil
        status.update { $0.reception = .absent }
        ambient.yield(.gps(GPSState(receiverPresent: false)))
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
        ambient.yield(.gps(GPSState(receiverPresent: true, listeningSince: listeningSince)))
        logger.info("GPS receiver answers")
    }

    fileprivate func publish(_ epoch: GNSSEpoch, listeningSince: Date) {
        let fix = epoch.fix
        let now = Date()
        guard fix.mode >= .twoD, let latitude = fix.latitude, let longitude = fix.longitude,
              let point = try? GeoPoint(latitude: latitude, longitude: longitude)
        else {
            status.update { $0.reception = .searching }
            return
        }
        let position = PositionFix(position: point, mode: fix.mode == .threeD ? .threeD : .twoD, hdop: epoch.sky.hdop, time: now)
        status.update {
            $0.reception = .fix
            $0.latitude = latitude
            $0.longitude = longitude
            $0.mode = position.mode.rawValue
            $0.hdop = epoch.sky.hdop
            $0.at = now
        }
        ambient.yield(.gps(GPSState(receiverPresent: true, listeningSince: listeningSince, lastFix: position)))
    }
}
