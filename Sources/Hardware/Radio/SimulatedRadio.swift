import DriftSystem
import Synchronization

/// The sim board's LoRa radio: UDP datagrams on loopback between `driftd` processes.
///
/// Every transmission goes, after its time on air, to each configured peer port as a
/// ``SimulatedRadioDatagram`` carrying this radio's position and channel and when the frame was
/// on the air; the receiver decides with ``SimulatedRadioMedium`` whether and how loud it hears
/// it. Half duplex: a frame that was on the air while this radio was transmitting is not heard
/// (counted), judged on the machine's monotonic clock (``MonotonicTime``) that stamps both.
/// Collisions: a frame that overlapped another this radio heard (its carrier came while the
/// frame was on the air, or before) is lost unless it was the stronger by the medium's capture
/// threshold (``SimulatedRadioMedium/collides(_:with:on:)``; counted).
public final class SimulatedRadio: MeshRadio, @unchecked Sendable {
    /// What the simulated radio needs to know.
    public struct Configuration: Sendable, Equatable {
        /// Loopback address this radio listens on (`port` 0 = any free port).
        public var host: String
        public var port: Int
        /// The other radios' ports (the medium decides which of them hear us).
        public var peers: [(host: String, port: Int)]
        public var transmitter: SimulatedRadioTransmitter
        public var medium: SimulatedRadioMedium

        public init(
            host: String = "127.0.0.1", port: Int, peers: [(host: String, port: Int)],
            transmitter: SimulatedRadioTransmitter, medium: SimulatedRadioMedium
        ) {
            self.host = host
            self.port = port
            self.peers = peers
            self.transmitter = transmitter
            self.medium = medium
        }

        public static func == (a: Configuration, b: Configuration) -> Bool {
            a.host == b.host && a.port == b.port && a.peers.map { "\($0.host):\($0.port)" } == b.peers.map { "\($0.host):\($0.port)" }
                && a.transmitter == b.transmitter && a.medium == b.medium
        }
    }

    /// What happened to datagrams, for `driftd status` and tests.
    public struct Counters: Sendable, Equatable {
        public var sent = 0
        public var heard = 0
        public var outOfRange = 0
        public var lost = 0
        public var deafWhileTransmitting = 0
        /// Frames in range lost to another frame this radio heard on the air at the same time.
        public var collided = 0
        /// Carriers heard: transmissions in range as they began (carrier sense).
        public var carriers = 0
        /// Carriers read only after this radio had begun a transmission of its own while that
        /// other one was already on the air: it talked over a frame its carrier sense had not
        /// heard yet. The loopback's lag (a datagram read by a busy receive loop); a hardware
        /// radio's channel activity detection hears a frame within a few symbols.
        public var carriersReadLate = 0
        /// The longest a carrier in range took from its transmission's start to being read.
        public var carrierLagLongest: Duration = .zero
        public var malformed = 0
        public var sendErrors = 0
    }

    public let configuration: Configuration
    /// The port actually bound (differs from the configuration's when it asked for 0).
    public let port: Int
    public let maximumFrameBytes = 255

    private let socket: FileDescriptor
    private let readiness: ReadinessMonitor
    private let clock = ContinuousClock()
    private struct State {
        /// This radio's latest transmissions, on ``MonotonicTime``'s scale.
        var transmissions: [ClosedRange<Duration>] = []
        /// Until when a transmission this radio hears (its carrier datagram) is on the air.
        var busyUntil: Duration?
        /// The latest transmissions this radio heard begin (their carriers), for collisions.
        var carriersHeard: [HeardCarrier] = []
        var counters = Counters()
        var closed = false
    }
    /// Transmissions remembered for the half-duplex check (a datagram read late may overlap an
    /// earlier one than the last).
    static let rememberedTransmissions = 16
    /// Carriers remembered for collisions: a frame is judged when it ends, against every
    /// carrier that came before then; older ones than this many are long off the air.
    static let rememberedCarriers = 32

    /// A transmission this radio heard begin: who sent it (with its end, which names it), when
    /// it was on the air and how loud.
    struct HeardCarrier {
        var sender: SimulatedRadioTransmitter
        var heard: SimulatedRadioMedium.Heard
    }
    private let state = Mutex(State())

    /// Binds the radio's port.
    public init(configuration: Configuration) throws(SystemError) {
        let bound = try UDPSocket.bind(host: configuration.host, port: configuration.port)
        self.configuration = configuration
        self.socket = bound.socket
        self.port = bound.port
        self.readiness = ReadinessMonitor(descriptor: bound.socket, label: "drift.radio.sim")
    }

    deinit {
        close()
    }

    public var counters: Counters { state.withLock { $0.counters } }

    /// Receptions dropped because they did not decode (``MeshRadio/malformedReceptions``).
    public var malformedReceptions: Int { counters.malformed }

    /// Frames not heard because this radio was transmitting while they were on the air.
    public var deafReceptions: Int { counters.deafWhileTransmitting }

    /// Frames lost to a collision with another frame this radio heard on the air.
    public var collidedReceptions: Int { counters.collided }

    /// Transmissions begun over another already on the air whose carrier was read late.
    public var carriersReadLate: Int { counters.carriersReadLate }

    /// Whether a ``receive()`` found no datagram and is parked on the socket's readiness (what
    /// a test acting on a waiting receive checks).
    public var isReceiving: Bool { readiness.isWaiting }

    public func transmit(_ frame: [UInt8], airtime: Duration) async throws {
        let start = clock.now
        let onAirFrom = MonotonicTime.now()
        state.withLock {
            $0.transmissions.append(onAirFrom...(onAirFrom + airtime))
            if $0.transmissions.count > Self.rememberedTransmissions { $0.transmissions.removeFirst() }
        }
        let datagram = SimulatedRadioDatagram(sender: configuration.transmitter, frame: frame, airEnd: onAirFrom + airtime,
                                              airtime: airtime)
        var failures = sendToPeers(datagram.carrier.encoded())  // what channel activity detection hears now
        try await Task.sleep(until: start + airtime, clock: clock)
        failures += sendToPeers(datagram.encoded())
        state.withLock {
            $0.counters.sent += 1
            $0.counters.sendErrors += failures
        }
    }

    /// Sends `bytes` to every peer; returns how many sends failed.
    private func sendToPeers(_ bytes: [UInt8]) -> Int {
        var failures = 0
        for peer in configuration.peers {
            do throws(SystemError) {
                try UDPSocket.send(socket, bytes, host: peer.host, port: peer.port)
            } catch {
                failures += 1
            }
        }
        return failures
    }

    /// Until when a transmission this radio hears is on the air (its carrier came), or `nil`.
    public var channelBusyUntil: Duration? {
        let now = MonotonicTime.now()
        return state.withLock { state in state.busyUntil.flatMap { $0 > now ? $0 : nil } }
    }

    /// When the last transmission this radio heard (its carrier datagram) ends or ended, or `nil`.
    public var channelQuietSince: Duration? {
        state.withLock { $0.busyUntil }
    }

    /// A transmission in range has begun: the channel is busy until it ends.
    private func heard(carrier decoded: SimulatedRadioDatagram) {
        guard let power = configuration.medium.reception(from: decoded.sender, to: configuration.transmitter, randomDraw: 1) else { return }
        let read = MonotonicTime.now(), began = decoded.onAir.lowerBound
        state.withLock {
            $0.busyUntil = max($0.busyUntil ?? .zero, decoded.airEnd)
            $0.counters.carriers += 1
            $0.counters.carrierLagLongest = max($0.counters.carrierLagLongest, read - began)
            if $0.transmissions.contains(where: { $0.lowerBound > began && $0.lowerBound < read }) {
                $0.counters.carriersReadLate += 1
            }
            $0.carriersHeard.append(HeardCarrier(sender: decoded.sender, heard: .init(onAir: decoded.onAir, rssi: power.rssi)))
            if $0.carriersHeard.count > Self.rememberedCarriers { $0.carriersHeard.removeFirst() }
        }
    }

    public func receive() async throws -> RadioReception? {
        while true {
            if state.withLock({ $0.closed }) { return nil }
            let datagram: [UInt8]?
            do {
                datagram = try UDPSocket.receive(socket)
            } catch {
                if state.withLock({ $0.closed }) { return nil }
                throw error
            }
            guard let datagram else {
                do {
                    _ = try await readiness.readable()
                } catch is ReadinessMonitorClosed {
                    return nil
                }
                continue
            }
            let arrival = clock.now
            guard let decoded = SimulatedRadioDatagram(decoding: datagram) else {
                state.withLock { $0.counters.malformed += 1 }
                continue
            }
            if decoded.isCarrier {
                heard(carrier: decoded)
                continue
            }
            // Out of range (or lost) first: only a frame this radio could have heard counts as
            // lost to half duplex or to a collision.
            let inRange = configuration.medium.reception(from: decoded.sender, to: configuration.transmitter, randomDraw: 1)
            if let inRange {
                // The sender's frame occupied the air for its time on air before the datagram
                // was sent; a receiver transmitting at any moment of that could not hear it.
                let onAir = decoded.onAir
                let deaf = state.withLock { state in state.transmissions.contains { $0.overlaps(onAir) } }
                if deaf {
                    state.withLock { $0.counters.deafWhileTransmitting += 1 }
                    continue
                }
                if collided(decoded, rssi: inRange.rssi) {
                    state.withLock { $0.counters.collided += 1 }
                    continue
                }
            }
            guard let heard = configuration.medium.reception(
                from: decoded.sender, to: configuration.transmitter, randomDraw: Double.random(in: 0..<1))
            else {
                state.withLock {
                    if configuration.medium.lossProbability > 0, inRange != nil {
                        $0.counters.lost += 1
                    } else {
                        $0.counters.outOfRange += 1
                    }
                }
                continue
            }
            if configuration.medium.latency > .zero {
                try await Task.sleep(until: arrival + configuration.medium.latency, clock: clock)
            }
            state.withLock { $0.counters.heard += 1 }
            return RadioReception(bytes: decoded.frame, rssi: heard.rssi, snr: heard.snr)
        }
    }

    /// Whether a frame in range, heard at `rssi`, was lost to another transmission this radio
    /// heard on the air with it. Every such transmission began before this frame ended, so its
    /// carrier came before this frame's datagram (which is sent after its time on air): the
    /// frame is judged once, complete. Its own carrier (the same sender and end) is not another frame.
    private func collided(_ datagram: SimulatedRadioDatagram, rssi: Double) -> Bool {
        let medium = configuration.medium
        guard medium.captureThresholdDb != nil else { return false }
        let mine = SimulatedRadioMedium.Heard(onAir: datagram.onAir, rssi: rssi)
        return state.withLock { state in
            state.carriersHeard.contains { other in
                !(other.sender == datagram.sender && other.heard.onAir.upperBound == datagram.airEnd)
                    && medium.collides(mine, with: other.heard, on: datagram.sender.channel)
            }
        }
    }

    public func close() {
        let wasOpen = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard wasOpen else { return }
        readiness.close()
        try? socket.close()
    }
}
