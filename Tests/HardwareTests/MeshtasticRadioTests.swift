import DriftSystem
import Foundation
import Hardware
import Synchronization
import Testing
import TestSupport

/// The Meshtastic driver end to end: real pseudo-terminals, the node emulator on the
/// master side, and for node-to-node tests the simulated medium between two emulators.
@Suite("Meshtastic radio driver")
struct MeshtasticRadioTests {
    /// Short timings so reconnects and heartbeats happen within a test.
    static func configuration(_ path: String, textChannel: UInt32? = 0) -> MeshtasticRadio.Configuration {
        MeshtasticRadio.Configuration(
            path: path, channel: 0, hopLimit: 4, textChannel: textChannel, handshakeTimeout: .seconds(20),
            heartbeatInterval: .seconds(300), wakeDelay: .milliseconds(20), reconnectDelay: .milliseconds(100),
            maximumReconnectDelay: .milliseconds(400), connectWait: .seconds(40), queueWait: .seconds(40))
    }

    /// Waits (real time, generous for a loaded machine) until `condition` holds.
    static func eventually(_ limit: Duration = .seconds(40), _ condition: () -> Bool) async throws -> Bool {
        try await TestSupport.eventually(within: limit, every: .milliseconds(20), condition)
    }

    /// The next reception, or `nil` after `limit`.
    static func next(_ radio: MeshtasticRadio, within limit: Duration = .seconds(40)) async throws -> RadioReception? {
        try await withinTimeLimit(limit) { try await radio.receive() } ?? nil
    }

    @Test("the handshake wakes the node, asks for its config and learns its number, firmware and channels")
    func handshake() async throws {
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        let radio = MeshtasticRadio(configuration: Self.configuration(node.slavePath))
        async let _ = radio.run()
        defer { radio.close() }
        let info = try await radio.connectedNode(within: .seconds(40))
        #expect(info.number == 0x1A2B_3C4D)
        #expect(info.id == "!1a2b3c4d")
        #expect(info.firmwareVersion == "2.5.6.d55c08d")
        #expect(info.channels == [MeshtasticChannel(index: 0, name: "LongFast", role: .primary)])
        #expect(info.lora?.region == 3)
        #expect(info.knownNodes == 1)
        #expect(radio.maximumFrameBytes == 233)
        let raw = node.rawInput
        #expect(Array(raw.prefix(32)) == MeshtasticFraming.wakeSequence)
        guard case .wantConfigID(let nonce)? = node.received.first else {
            Issue.record("no want_config_id: \(node.received)")
            return
        }
        #expect(nonce != 0)
        #expect(try await Self.eventually { radio.counters.logLines >= 2 })
        #expect(radio.recentLogLines.contains { $0.contains("want_config_id") })
        #expect(radio.counters.handshakes == 1)
    }

    @Test("a frame goes out as a broadcast PRIVATE_APP packet without ack, with the configured hop limit; text as TEXT_MESSAGE_APP")
    func transmitAndText() async throws {
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        let radio = MeshtasticRadio(configuration: Self.configuration(node.slavePath, textChannel: 2))
        async let _ = radio.run()
        defer { radio.close() }
        let frame = Array(UInt8(0)..<UInt8(233))
        try await radio.transmit(frame, airtime: .milliseconds(10))
        #expect(try await radio.publishText("Camp Nord: 12 people, water at the big tree"))
        try await radio.sendText(String(repeating: "ü", count: 200), channel: 1)
        #expect(try await Self.eventually { node.packets.count == 3 })
        let packets = node.packets
        let ours = try #require(packets.first)
        #expect(ours.to == 0xFFFF_FFFF)
        #expect(ours.channel == 0)
        #expect(ours.hopLimit == 4)
        #expect(!ours.wantAck)
        #expect(ours.id != 0)
        #expect(ours.decoded == MeshtasticData(portnum: 256, payload: frame))
        #expect(packets[1].decoded?.portnum == 1)
        #expect(packets[1].channel == 2)
        #expect(packets[1].decoded.map { String(decoding: $0.payload, as: UTF8.self) } == "Camp Nord: 12 people, water at the big tree")
        // 400 bytes of text are cut to 232 bytes: 116 whole "ü", never half a character.
        #expect(packets[2].decoded?.payload.count == 232)
        #expect(packets[2].decoded.map { String(decoding: $0.payload, as: UTF8.self) } == String(repeating: "ü", count: 116))
        await #expect(throws: MeshtasticError.frameTooLarge(count: 234, limit: 233)) {
            try await radio.transmit([UInt8](repeating: 1, count: 234), airtime: .zero)
        }
        #expect(radio.counters.framesSent == 1)
        #expect(radio.counters.textsSent == 2)
    }

    @Test("publishText does nothing when text_channel is off")
    func textOff() async throws {
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        let radio = MeshtasticRadio(configuration: Self.configuration(node.slavePath, textChannel: nil))
        async let _ = radio.run()
        defer { radio.close() }
        _ = try await radio.connectedNode(within: .seconds(40))
        #expect(try await radio.publishText("nobody hears this") == false)
        try await radio.transmit([1, 2, 3], airtime: .zero)
        #expect(try await Self.eventually { node.packets.count == 1 })
        #expect(node.packets.allSatisfy { $0.decoded?.portnum == 256 })
    }

    @Test("PRIVATE_APP packets on our channel arrive with RSSI and SNR; others are ignored")
    func receive() async throws {
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        let radio = MeshtasticRadio(configuration: Self.configuration(node.slavePath))
        async let _ = radio.run()
        defer { radio.close() }
        _ = try await radio.connectedNode(within: .seconds(40))
        try node.deliver(MeshtasticMeshPacket(from: 5, channel: 0, decoded: MeshtasticData(portnum: 1, payload: Array("hi".utf8)), id: 1))
        try node.deliver(MeshtasticMeshPacket(from: 5, channel: 3, decoded: MeshtasticData(portnum: 256, payload: [9]), id: 2))
        try node.deliver(MeshtasticMeshPacket(from: 5, channel: 0, encrypted: [1, 2, 3], id: 3))
        try node.writeRaw(Array("WARN  | [Router] noise\n".utf8) + [0x94, 0xC3, 0x00, 0x03, 0xFF, 0xFF, 0xFF])
        try node.deliver(MeshtasticMeshPacket(
            from: 6, channel: 0, decoded: MeshtasticData(portnum: 256, payload: [0xD1, 0x02, 0x03]), id: 4, rxSNR: 5.25, hopLimit: 2, rxRSSI: -97))
        let reception = try #require(try await Self.next(radio))
        #expect(reception == RadioReception(bytes: [0xD1, 0x02, 0x03], rssi: -97, snr: 5.25))
        #expect(radio.counters.otherPackets == 3)
        #expect(radio.counters.malformed == 1)
        #expect(radio.counters.framesReceived == 1)
    }

    @Test("two drivers talk through two emulated nodes on the simulated medium")
    func nodeToNode() async throws {
        let channel = SimulatedRadioTransmitter.Channel(frequencyMHz: 869.525, spreadingFactor: 11, bandwidthHz: 250_000)
        let medium = SimulatedRadioMedium(rangeMeters: 5_000)
        // A's peer is B's port, so B's port comes first; if another process binds it before B
        // does (it was free when taken), both radios are made again on the next one.
        let (airA, airB) = try LoopbackPorts.binding { portB in
            let airA = try SimulatedRadio(configuration: .init(
                port: 0, peers: [("127.0.0.1", portB)],
                transmitter: .init(latitude: 52.4731, longitude: 13.4019, txPowerDBm: 14, channel: channel), medium: medium))
            let airB = try SimulatedRadio(configuration: .init(
                port: portB, peers: [("127.0.0.1", airA.port)],
                transmitter: .init(latitude: 52.4831, longitude: 13.4019, txPowerDBm: 14, channel: channel), medium: medium))
            return (airA, airB)
        }
        let nodeA = try MeshtasticNodeEmulator(settings: .init(nodeNumber: 0xA), air: airA)
        let nodeB = try MeshtasticNodeEmulator(settings: .init(nodeNumber: 0xB), air: airB)
        defer {
            nodeA.stop()
            nodeB.stop()
        }
        let radioA = MeshtasticRadio(configuration: Self.configuration(nodeA.slavePath))
        async let _ = radioA.run()
        let radioB = MeshtasticRadio(configuration: Self.configuration(nodeB.slavePath))
        async let _ = radioB.run()
        defer {
            radioA.close()
            radioB.close()
        }
        _ = try await radioB.connectedNode(within: .seconds(40))
        try await radioA.transmit([0xD1, 0xAA, 0xBB], airtime: .milliseconds(5))
        let heard = try #require(try await Self.next(radioB))
        #expect(heard.bytes == [0xD1, 0xAA, 0xBB])
        #expect(heard.rssi < -30)
        try await radioB.transmit([0xD1, 0x01], airtime: .milliseconds(5))
        #expect(try await Self.next(radioA)?.bytes == [0xD1, 0x01])
    }

    @Test("with the node's queue full a transmission waits for a queue status with room")
    func flowControl() async throws {
        let node = try MeshtasticNodeEmulator(settings: .init(queueFree: 0))
        defer { node.stop() }
        // On a manual clock, so the wait for room is a sleeper the test can see.
        let clock = ManualClock()
        let radio = MeshtasticRadio(configuration: Self.configuration(node.slavePath), clock: clock)
        async let _ = radio.run()
        defer { radio.close() }
        await clock.waitForSleepers(1)  // the wake-up pause; the node answers the handshake at once
        clock.advance(by: .milliseconds(20))
        #expect(try await Self.eventually { radio.isConnected })
        // Then only the heartbeat sleeps (the handshake's watchdog is cancelled a moment after).
        #expect(try await Self.eventually { clock.sleeperCount == 1 && clock.nextDeadline == clock.now.advanced(by: .seconds(300)) })
        try await radio.transmit([1], airtime: .zero)
        #expect(try await Self.eventually { node.packets.count == 1 && radio.nodeQueueFree == 0 })
        // The node answered free = 0: the next frame waits, its limit a second sleeper. Parked
        // there, it has not been written.
        let second = Task { try await radio.transmit([2], airtime: .zero) }
        #expect(try await Self.eventually { radio.counters.queueWaits == 1 && clock.sleeperCount == 2 })
        #expect(clock.nextDeadline == clock.now.advanced(by: .seconds(40)))
        #expect(node.packets.count == 1)
        try node.send(.queueStatus(MeshtasticQueueStatus(free: 4, maxlen: 16)))
        try await second.value
        #expect(try await Self.eventually { node.packets.count == 2 })
        #expect(node.packets.last?.decoded?.payload == [2])
        #expect(radio.counters.queueWaitTimeouts == 0)
    }

    @Test("a heartbeat goes out every interval")
    func heartbeat() async throws {
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        var configuration = Self.configuration(node.slavePath)
        configuration.heartbeatInterval = .milliseconds(100)
        let radio = MeshtasticRadio(configuration: configuration)
        async let _ = radio.run()
        defer { radio.close() }
        #expect(try await Self.eventually {
            node.received.filter { if case .heartbeat = $0 { true } else { false } }.count >= 2
        })
        // Counted once written: the node may read a heartbeat before the radio counts it.
        #expect(try await Self.eventually { radio.counters.heartbeats >= 2 })
    }

    @Test("on a manual clock: the handshake gives up exactly at its limit, heartbeats come every 5 minutes")
    func manualClock() async throws {
        let clock = ManualClock()
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        node.isSilent = true
        var configuration = Self.configuration(node.slavePath)
        configuration.handshakeTimeout = .seconds(20)
        configuration.heartbeatInterval = .seconds(300)
        configuration.reconnectDelay = .seconds(1)
        let radio = MeshtasticRadio(configuration: configuration, clock: clock)
        async let _ = radio.run()
        defer { radio.close() }
        // The wake-up pause, then the handshake's watchdog: one sleeper at a time.
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(20))
        #expect(try await Self.eventually { node.rawInput.count > 32 && clock.sleeperCount == 1 })
        // The watchdog is the one sleeper, due at the handshake's limit: nothing ends it before.
        #expect(clock.nextDeadline == clock.now.advanced(by: .seconds(20)))
        #expect(radio.counters.handshakeTimeouts == 0)
        clock.advance(by: .seconds(20))
        #expect(try await Self.eventually { radio.counters.handshakeTimeouts == 1 })

        // The node answers from now on: back-off (1 s), wake-up pause, handshake. The port may
        // not open at once — a child another test is spawning holds a copy of the descriptor,
        // and its lock, until it execs ("in use by another process") — and then the back-off
        // runs again: step the clock a second at a time, each step once the radio sleeps again
        // after doing something (another failed open, or the wake-up bytes written).
        // Here the test holds the lock across the first reopen, so that path runs every time.
        node.isSilent = false
        #expect(try await Self.eventually { clock.sleeperCount == 1 })
        var holder: FileDescriptor? = try FileDescriptor.open(node.slavePath, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
        #expect(flock(try #require(holder).rawValue, LOCK_EX | LOCK_NB) == 0)
        defer { try? holder?.close() }
        for _ in 0..<10 where !radio.isConnected {
            let failures = radio.counters.connectionFailures, written = node.rawInput.count
            clock.advance(by: .seconds(1))
            #expect(try await Self.eventually {
                radio.isConnected
                    || (clock.sleeperCount == 1 && (radio.counters.connectionFailures != failures || node.rawInput.count != written))
            })
            if let held = holder, radio.counters.connectionFailures > failures {
                try held.close()
                holder = nil
            }
        }
        #expect(try await Self.eventually { radio.isConnected })
        #expect(holder == nil)
        // The handshake's time limit and the busy port (more if a spawning child held it too).
        #expect(radio.counters.connectionFailures >= 2)
        // Only the heartbeat sleeps now: its own sleep, 300 s from now. The radio reports
        // connected a moment before it cancels the handshake's watchdog, so "one sleeper" alone
        // can still be the watchdog; advancing then fires that one, and the heartbeat's sleep,
        // begun after, would end 300 s past the advance (seen in CI on a busy machine).
        #expect(try await Self.eventually {
            clock.sleeperCount == 1 && clock.nextDeadline == clock.now.advanced(by: .seconds(300))
        })
        #expect(radio.counters.heartbeats == 0)
        clock.advance(by: .seconds(300))
        #expect(try await Self.eventually { radio.counters.heartbeats == 1 })
        #expect(try await Self.eventually { node.received.contains(.heartbeat(nonce: 1)) })
    }

    @Test("a node that reboots gets a new handshake, then frames flow again")
    func reboot() async throws {
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        let radio = MeshtasticRadio(configuration: Self.configuration(node.slavePath))
        async let _ = radio.run()
        defer { radio.close() }
        _ = try await radio.connectedNode(within: .seconds(40))
        try node.reboot()
        #expect(try await Self.eventually { node.wantConfigCount == 2 && radio.isConnected })
        #expect(radio.counters.reboots == 1)
        #expect(radio.counters.handshakes == 2)
        try await radio.transmit([7, 7], airtime: .zero)
        #expect(try await Self.eventually { node.packets.count == 1 })
    }

    @Test("a silent node fails the handshake with a typed error, and is retried")
    func silentNode() async throws {
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        node.isSilent = true
        var configuration = Self.configuration(node.slavePath)
        configuration.handshakeTimeout = .milliseconds(300)
        let radio = MeshtasticRadio(configuration: configuration)
        async let _ = radio.run()
        defer { radio.close() }
        #expect(try await Self.eventually { radio.counters.handshakeTimeouts >= 2 })
        do {
            _ = try await radio.connectedNode(within: .milliseconds(50))
            Issue.record("a silent node connected")
        } catch {
            guard case .notConnected(_, let problem) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(problem?.contains("handshake") == true)
        }
        // It wakes up again: the next attempt succeeds.
        node.isSilent = false
        _ = try await radio.connectedNode(within: .seconds(40))
    }

    @Test("an unplugged node is reopened when it comes back (on a new device path)")
    func unplugged() async throws {
        let first = try MeshtasticNodeEmulator(settings: .init(nodeNumber: 1))
        let current = SharedPath(first.slavePath)
        let radio = MeshtasticRadio(
            configuration: Self.configuration("/dev/meshtastic-test"),
            opener: { _, settings in try SerialPorts.open(path: current.value, settings: settings) })
        async let _ = radio.run()
        defer { radio.close() }
        #expect(try await radio.connectedNode(within: .seconds(40)).number == 1)
        first.stop()
        #expect(try await Self.eventually { !radio.isConnected })
        let second = try MeshtasticNodeEmulator(settings: .init(nodeNumber: 2, firmwareVersion: "2.6.0.abcdef0"))
        defer { second.stop() }
        current.value = second.slavePath
        #expect(try await Self.eventually { radio.node?.number == 2 && radio.isConnected })
        #expect(radio.node?.firmwareVersion == "2.6.0.abcdef0")
        #expect(radio.counters.connectionFailures >= 1)
    }

    @Test("port = auto finds the node by USB id, or says which ports it saw")
    func autoPort() async throws {
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        let radio = MeshtasticRadio(configuration: Self.configuration("auto"), lister: {
            [SerialPortInfo(path: "/dev/ttyAMA0", transport: .native),
             SerialPortInfo(path: node.slavePath, transport: .usb, usbVendorID: 0x303A, usbProductID: 0x1001)]
        })
        async let _ = radio.run()
        defer { radio.close() }
        #expect(try await radio.connectedNode(within: .seconds(40)).path == node.slavePath)

        let none = MeshtasticRadio(configuration: Self.configuration("auto"), lister: {
            [SerialPortInfo(path: "/dev/ttyUSB0", transport: .usb, usbVendorID: 0x0403, usbProductID: 0x6001)]
        })
        async let _ = none.run()
        defer { none.close() }
        do {
            _ = try await none.connectedNode(within: .seconds(2))
            Issue.record("connected without a node")
        } catch {
            guard case .notConnected(_, let problem) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(problem?.contains("0403:6001") == true)
        }
    }

    @Test("close ends a pending receive with nil and later transmissions fail")
    func closing() async throws {
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        let radio = MeshtasticRadio(configuration: Self.configuration(node.slavePath))
        async let _ = radio.run()
        _ = try await radio.connectedNode(within: .seconds(40))
        let pending = Task { try await radio.receive() }
        #expect(try await Self.eventually { radio.isReceiving })
        radio.close()
        #expect(try await pending.value == nil)
        await #expect(throws: MeshtasticError.closed) { try await radio.transmit([1], airtime: .zero) }
        #expect(try await Self.eventually { node.received.contains(.disconnect) })
    }
}

/// A device path the test changes while the driver's opener reads it.
private final class SharedPath: Sendable {
    private let path: Mutex<String>

    init(_ path: String) { self.path = Mutex(path) }

    var value: String {
        get { path.withLock { $0 } }
        set { path.withLock { $0 = newValue } }
    }
}
