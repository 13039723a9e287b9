import DriftSystem
import Foundation
import Hardware
import Testing
import TestSupport

/// The sim board's radio over real UDP sockets on loopback.
@Suite("Simulated radio on loopback UDP")
struct SimulatedRadioTests {
    static let channel = SimulatedRadioTransmitter.Channel(frequencyMHz: 869.525, spreadingFactor: 11, bandwidthHz: 250_000)

    /// A transmitter `metres` east of Tempelhofer Feld's reference point.
    static func at(_ metres: Double, channel: SimulatedRadioTransmitter.Channel = channel) -> SimulatedRadioTransmitter {
        let degrees = metres / (111_320 * cos(52.4731 * Double.pi / 180))
        return SimulatedRadioTransmitter(latitude: 52.4731, longitude: 13.4019 + degrees, txPowerDBm: 14, channel: channel)
    }

    /// A bare UDP socket that sends hand-made datagrams to a radio's port.
    final class StraySender {
        let socket: FileDescriptor
        let port: Int
        init(to radio: SimulatedRadio) throws {
            socket = try UDPSocket.bind(host: "127.0.0.1", port: 0).socket
            port = radio.port
        }
        func send(_ datagram: SimulatedRadioDatagram) throws {
            try UDPSocket.send(socket, datagram.encoded(), host: "127.0.0.1", port: port)
        }
        deinit { try? socket.close() }
    }

    static func radio(
        at metres: Double, peers: [Int] = [], medium: SimulatedRadioMedium = .init(rangeMeters: 1_000),
        channel: SimulatedRadioTransmitter.Channel = channel
    ) throws -> SimulatedRadio {
        try SimulatedRadio(configuration: .init(
            port: 0, peers: peers.map { ("127.0.0.1", $0) }, transmitter: at(metres, channel: channel), medium: medium))
    }

    /// The next reception, or `nil` after `timeout`.
    static func next(_ radio: SimulatedRadio, timeout: Duration = .milliseconds(400)) async throws -> RadioReception? {
        try await withThrowingTaskGroup(of: RadioReception?.self) { group in
            group.addTask { try await radio.receive() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test("a frame in range arrives whole, with RSSI and SNR from the distance")
    func inRange() async throws {
        let receiver = try Self.radio(at: 800)
        defer { receiver.close() }
        let sender = try Self.radio(at: 0, peers: [receiver.port])
        defer { sender.close() }
        let frame = (0..<200).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try await sender.transmit(frame, airtime: .milliseconds(5))
        let heard = try #require(try await Self.next(receiver, timeout: .seconds(5)))
        #expect(heard.bytes == frame)
        // 14 dBm − (20·log10(869.525) − 27.55 + 30·log10(800)) ≈ −104.3 dBm
        #expect(abs(heard.rssi - -104.3) < 0.5)
        #expect(abs(heard.snr - (heard.rssi - (-174 + 10 * log10(250_000.0) + 6))) < 0.001)
        #expect(sender.counters.sent == 1)
        #expect(receiver.counters.heard == 1)
    }

    @Test("beyond the range nothing is heard, and the receiver counts it")
    func outOfRange() async throws {
        let receiver = try Self.radio(at: 1_600)
        defer { receiver.close() }
        let sender = try Self.radio(at: 0, peers: [receiver.port])
        defer { sender.close() }
        try await sender.transmit([1, 2, 3], airtime: .milliseconds(1))
        #expect(try await Self.next(receiver) == nil)
        #expect(receiver.counters.outOfRange == 1)
    }

    @Test("without a hard range the SF11/250 kHz sensitivity (−131.5 dBm) decides")
    func pathLossDecides() {
        let medium = SimulatedRadioMedium(pathLossExponent: 3.0)
        // 14 dBm − 31.2 dB − 30·log10(d) ≥ −131.5 dBm ⇔ d ≤ 10^(114.3 / 30) ≈ 6.5 km
        #expect(medium.reception(from: Self.at(0), to: Self.at(6_000), randomDraw: 0.5) != nil)
        #expect(medium.reception(from: Self.at(0), to: Self.at(7_000), randomDraw: 0.5) == nil)
        #expect(SimulatedRadioMedium.demodulationLimit(spreadingFactor: 7) == -7.5)
        #expect(SimulatedRadioMedium.demodulationLimit(spreadingFactor: 12) == -20)
    }

    @Test("another channel or spreading factor is silence; the loss probability drops frames")
    func channelAndLoss() {
        let other = SimulatedRadioTransmitter.Channel(frequencyMHz: 868.1, spreadingFactor: 11, bandwidthHz: 250_000)
        let medium = SimulatedRadioMedium(rangeMeters: 1_000, lossProbability: 0.3)
        #expect(medium.reception(from: Self.at(0, channel: other), to: Self.at(10), randomDraw: 0.9) == nil)
        #expect(medium.reception(from: Self.at(0), to: Self.at(10), randomDraw: 0.29) == nil)
        #expect(medium.reception(from: Self.at(0), to: Self.at(10), randomDraw: 0.31) != nil)
    }

    @Test("stray and short datagrams on the radio's port are counted, not heard")
    func strayDatagrams() async throws {
        let receiver = try Self.radio(at: 0)
        defer { receiver.close() }
        let stray = try UDPSocket.bind(host: "127.0.0.1", port: 0)
        defer { try? stray.socket.close() }
        try UDPSocket.send(stray.socket, Array("hello".utf8), host: "127.0.0.1", port: receiver.port)
        try UDPSocket.send(stray.socket, SimulatedRadioDatagram.magic + [UInt8](repeating: 0xFF, count: 30), host: "127.0.0.1", port: receiver.port)
        #expect(try await Self.next(receiver) == nil)
        #expect(receiver.counters.malformed == 2)
    }

    @Test("half duplex by air time: a frame on the air while the receiver transmitted is lost; one that ended before it began is heard, read however late")
    func halfDuplexByAirTime() async throws {
        let receiver = try Self.radio(at: 0)
        defer { receiver.close() }
        let before = MonotonicTime.now()
        try await receiver.transmit([1], airtime: .milliseconds(200))  // to nobody; on the air between `before` and `after`
        let after = MonotonicTime.now()
        let stray = try UDPSocket.bind(host: "127.0.0.1", port: 0)
        defer { try? stray.socket.close() }
        // Left the air before the receiver began to transmit, read only after its transmission.
        let early = SimulatedRadioDatagram(sender: Self.at(500), frame: [7], airEnd: before - .milliseconds(1), airtime: .milliseconds(50))
        // On the air all the while the receiver transmitted.
        let during = SimulatedRadioDatagram(sender: Self.at(500), frame: [8], airEnd: after, airtime: after - before)
        try UDPSocket.send(stray.socket, early.encoded(), host: "127.0.0.1", port: receiver.port)
        try UDPSocket.send(stray.socket, during.encoded(), host: "127.0.0.1", port: receiver.port)
        #expect(try await Self.next(receiver, timeout: .seconds(5))?.bytes == [7])
        #expect(try await Self.next(receiver) == nil)  // the second is read and dropped
        #expect(receiver.counters.deafWhileTransmitting == 1)
        #expect(receiver.deafReceptions == 1)
        #expect(receiver.counters.heard == 1)
    }

    @Test("carrier sense: a transmission sends its carrier before its frame; a carrier in range holds the channel busy until its frame's end, one from out of range does not")
    func carrierSense() async throws {
        let receiver = try Self.radio(at: 800)
        defer { receiver.close() }
        let near = try Self.radio(at: 0, peers: [receiver.port])
        defer { near.close() }
        #expect(receiver.channelBusyUntil == nil)
        #expect(receiver.channelQuietSince == nil, "nothing heard yet")
        let listening = Task { try await Self.next(receiver, timeout: .seconds(30)) }
        try await near.transmit([1, 2, 3], airtime: .milliseconds(50))
        #expect(try await listening.value?.bytes == [1, 2, 3])
        #expect(receiver.counters.carriers == 1)
        let quietSince = try #require(receiver.channelQuietSince, "the frame heard ended")
        #expect(quietSince <= MonotonicTime.now())
        #expect(receiver.channelBusyUntil == nil)
        // Carriers as datagrams (each followed by a frame that shows it was read: one socket's
        // datagrams arrive in order). From 1.9 km, out of the 1 km range: nothing.
        let stray = try UDPSocket.bind(host: "127.0.0.1", port: 0)
        defer { try? stray.socket.close() }
        let later = MonotonicTime.now() + .seconds(3_600)
        func send(_ datagram: SimulatedRadioDatagram) throws {
            try UDPSocket.send(stray.socket, datagram.encoded(), host: "127.0.0.1", port: receiver.port)
        }
        let ended = MonotonicTime.now() - .milliseconds(1)  // frames that left the air before now: not lost to half duplex
        try send(SimulatedRadioDatagram(sender: Self.at(1_900), frame: [], airEnd: later, airtime: .seconds(1)).carrier)
        try send(SimulatedRadioDatagram(sender: Self.at(500), frame: [9], airEnd: ended, airtime: .milliseconds(1)))
        #expect(try await Self.next(receiver, timeout: .seconds(30))?.bytes == [9])
        #expect(receiver.counters.carriers == 1)
        #expect(receiver.channelBusyUntil == nil, "a carrier from out of range made the channel busy")
        #expect(receiver.channelQuietSince == quietSince)
        // In range: busy until that frame's end.
        try send(SimulatedRadioDatagram(sender: Self.at(500), frame: [], airEnd: later, airtime: .seconds(1)).carrier)
        try send(SimulatedRadioDatagram(sender: Self.at(500), frame: [10], airEnd: ended, airtime: .milliseconds(1)))
        #expect(try await Self.next(receiver, timeout: .seconds(30))?.bytes == [10])
        #expect(receiver.counters.carriers == 2)
        #expect(receiver.channelBusyUntil == later)
        #expect(receiver.channelQuietSince == later, "quiet when that frame ends")
    }

    @Test("a carrier read after the radio began to talk over its transmission is counted late, with the longest lag; one whose transmission began after the radio's, or before it and read in time, is not")
    func carriersReadLate() async throws {
        let receiver = try Self.radio(at: 0)
        defer { receiver.close() }
        let stray = try StraySender(to: receiver)
        let send = stray.send
        // Another box's transmission began 40 ms before this radio talks; its carrier is read after.
        let talked = MonotonicTime.now()
        let began = talked - .milliseconds(40)
        try await receiver.transmit([1], airtime: .milliseconds(20))  // to nobody
        try send(SimulatedRadioDatagram(sender: Self.at(500), frame: [], airEnd: began + .milliseconds(100), airtime: .milliseconds(100)).carrier)
        // One that began after this radio's transmission: nothing it could have heard first.
        try send(SimulatedRadioDatagram(sender: Self.at(400), frame: [], airEnd: talked + .milliseconds(110), airtime: .milliseconds(100)).carrier)
        // Out of range: never heard, never late.
        try send(SimulatedRadioDatagram(sender: Self.at(5_000), frame: [], airEnd: began + .milliseconds(100), airtime: .milliseconds(100)).carrier)
        // A frame that had left the air a second before all of them: read after the carriers, heard.
        try send(SimulatedRadioDatagram(sender: Self.at(500), frame: [9], airEnd: began - .seconds(1), airtime: .milliseconds(1)))
        #expect(try await Self.next(receiver, timeout: .seconds(30))?.bytes == [9])
        #expect(receiver.counters.carriers == 2)
        #expect(receiver.counters.carriersReadLate == 1)
        #expect(receiver.carriersReadLate == 1)
        #expect(receiver.counters.carrierLagLongest >= talked - began)
    }

    @Test("collisions: frames that overlap by more than the lock time are lost unless 6 dB stronger; a short overlap or no threshold keeps both")
    func collisionRule() {
        let medium = SimulatedRadioMedium(rangeMeters: 1_000)
        #expect(medium.captureThresholdDb == 6)
        let lock = SimulatedRadioMedium.lockTime(on: Self.channel)  // 11 symbols of 8.192 ms at SF11/250 kHz
        #expect(abs(lock / .milliseconds(1) - 90.112) < 0.001)
        let first = SimulatedRadioMedium.Heard(onAir: .seconds(10)...(.seconds(11)), rssi: -100)
        func later(by start: Duration, rssi: Double) -> SimulatedRadioMedium.Heard {
            .init(onAir: (.seconds(10) + start)...(.seconds(11) + start), rssi: rssi)
        }
        let overlapping = later(by: .milliseconds(500), rssi: -100)
        #expect(medium.collides(first, with: overlapping, on: Self.channel))
        #expect(medium.collides(overlapping, with: first, on: Self.channel))
        // 6 dB stronger survives, whichever came first; the weaker is lost.
        let louder = later(by: .milliseconds(500), rssi: -94)
        #expect(!medium.collides(louder, with: first, on: Self.channel))
        #expect(medium.collides(first, with: louder, on: Self.channel))
        #expect(medium.collides(later(by: .milliseconds(500), rssi: -94.1), with: first, on: Self.channel))
        // The earlier frame ends within the later one's lock time: the receiver locks after it.
        let tail = later(by: .seconds(1) - lock + .milliseconds(1), rssi: -100)
        #expect(!medium.collides(first, with: tail, on: Self.channel))
        #expect(!medium.collides(tail, with: first, on: Self.channel))
        #expect(medium.collides(first, with: later(by: .seconds(1) - lock - .milliseconds(1), rssi: -100), on: Self.channel))
        // Frames apart on the air never collide.
        #expect(!medium.collides(first, with: later(by: .seconds(2), rssi: -80), on: Self.channel))
        var collisionFree = medium
        collisionFree.captureThresholdDb = nil
        #expect(!collisionFree.collides(first, with: overlapping, on: Self.channel))
    }

    @Test("collisions at a receiver: overlapping frames it hears are lost and counted; a frame's own carrier, a short overlap and a frame alone are not")
    func collisionsAtTheReceiver() async throws {
        let receiver = try Self.radio(at: 0)
        defer { receiver.close() }
        let stray = try StraySender(to: receiver)
        let send = stray.send
        // Every frame left the air before now: none is lost to half duplex (the receiver never sent).
        let base = MonotonicTime.now() - .seconds(60)
        func frame(_ byte: UInt8, from metres: Double, endingAt end: Duration) -> SimulatedRadioDatagram {
            SimulatedRadioDatagram(sender: Self.at(metres), frame: [byte], airEnd: base + end, airtime: .milliseconds(200))
        }
        // A frame alone, after its own carrier: heard.
        let alone = frame(1, from: 500, endingAt: .seconds(1))
        try send(alone.carrier)
        try send(alone)
        #expect(try await Self.next(receiver, timeout: .seconds(30))?.bytes == [1])
        /// Two transmissions as the air brings them: both carriers as they start, then both frames.
        func sendOverlapping(_ first: SimulatedRadioDatagram, _ second: SimulatedRadioDatagram) throws {
            for datagram in [first.carrier, second.carrier, first, second] { try send(datagram) }
        }
        // Two that overlap by 50 ms, less than the 90 ms lock time: both heard.
        try sendOverlapping(frame(2, from: 500, endingAt: .seconds(2)), frame(3, from: -500, endingAt: .seconds(2) + .milliseconds(150)))
        #expect(try await Self.next(receiver, timeout: .seconds(30))?.bytes == [2])
        #expect(try await Self.next(receiver, timeout: .seconds(30))?.bytes == [3])
        // Two that overlap by 150 ms at the same power (500 m east and west): both lost.
        try sendOverlapping(frame(4, from: 500, endingAt: .seconds(3)), frame(5, from: -500, endingAt: .seconds(3) + .milliseconds(50)))
        let after = frame(6, from: 500, endingAt: .seconds(4))
        try send(after.carrier)
        try send(after)
        #expect(try await Self.next(receiver, timeout: .seconds(30))?.bytes == [6], "the colliding pair was read and dropped first")
        #expect(receiver.counters.collided == 2)
        #expect(receiver.collidedReceptions == 2)
        #expect(receiver.counters.heard == 4)
        #expect(receiver.counters.deafWhileTransmitting == 0)
    }

    @Test("hidden terminals: two boxes that do not hear each other lose their frames at the box between them; a near one captures it")
    func hiddenTerminals() async throws {
        for (near, expectedHeard) in [(700.0, nil), (100.0, [UInt8](arrayLiteral: 2))] {
            let receiver = try Self.radio(at: 0)
            let west = try Self.radio(at: -700, peers: [receiver.port])  // west and east are not each other's peers: hidden
            let east = try Self.radio(at: near, peers: [receiver.port])
            let listening = Task { try await receiver.receive() }
            // West's frame is on the air for a minute; east sends within it, once its carrier came.
            let long = Task { try await west.transmit([1], airtime: .seconds(60)) }
            #expect(try await eventually { receiver.counters.carriers == 1 })
            try await east.transmit([2], airtime: .milliseconds(10))
            if let expectedHeard {
                #expect(try await listening.value?.bytes == expectedHeard, "\(near) m: 25 dB stronger, captured")
                #expect(receiver.counters.collided == 0)
            } else {
                #expect(try await eventually { receiver.counters.collided == 1 }, "\(near) m: as loud as the other, lost")
                #expect(receiver.counters.heard == 0)
            }
            long.cancel()
            receiver.close()
            _ = try? await listening.value
            west.close()
            east.close()
        }
    }

    @Test("datagrams round-trip and hostile bytes never decode into nonsense")
    func datagramCodec() {
        let datagram = SimulatedRadioDatagram(sender: Self.at(123), frame: [9, 8, 7], airEnd: .seconds(1_234) + .microseconds(5),
                                              airtime: .milliseconds(682))
        #expect(SimulatedRadioDatagram(decoding: datagram.encoded()) == datagram)
        #expect(SimulatedRadioDatagram(decoding: datagram.carrier.encoded()) == datagram.carrier)
        #expect(SimulatedRadioDatagram(decoding: datagram.carrier.encoded() + [1]) == nil, "a carrier carries no frame")
        var generator = SystemRandomNumberGenerator()
        for length in 0..<64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = SimulatedRadioDatagram(decoding: SimulatedRadioDatagram.magic + bytes)
        }
    }

    @Test("closing the radio ends a pending receive with nil")
    func closeEndsReceive() async throws {
        let radio = try Self.radio(at: 0)
        async let pending = radio.receive()
        #expect(try await eventually { radio.isReceiving })
        radio.close()
        #expect(try await pending == nil)
    }

    /// A port checked free can be bound by another process before the test binds it (seen
    /// once: the two-node Meshtastic test failed with EADDRINUSE). `LoopbackPorts.binding`
    /// moves on to the next port then; any other error ends it at once.
    @Test("a loopback port taken between the check and the bind: the next one is bound; other errors are not retried")
    func portTakenAfterTheCheck() throws {
        var tried: [Int] = []
        var squatter: FileDescriptor?
        defer { try? squatter?.close() }
        let radio = try LoopbackPorts.binding { port in
            tried.append(port)
            if squatter == nil { squatter = try UDPSocket.bind(host: "127.0.0.1", port: port).socket }  // someone else got there first
            return try SimulatedRadio(configuration: .init(port: port, peers: [], transmitter: Self.at(0), medium: .init(rangeMeters: 1_000)))
        }
        defer { radio.close() }
        #expect(tried.count == 2 && tried[0] != tried[1], "\(tried)")
        #expect(radio.port == tried[1])
        var calls = 0
        #expect(throws: SystemError.self) {
            try LoopbackPorts.binding { _ -> Int in
                calls += 1
                throw SystemError(operation: "bind", errno: EACCES)
            }
        }
        #expect(calls == 1)
    }
}
