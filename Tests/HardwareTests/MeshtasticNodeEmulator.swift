import Foundation
import Hardware
import Synchronization
import TestSupport

/// A Meshtastic node for tests, on the master side of a real pseudo-terminal: the driver
/// under test opens ``slavePath`` as it would open `/dev/ttyACM0`.
///
/// It answers `want_config_id` (debug log text, `my_info`, `metadata`, one channel, the
/// LoRa config, its own `node_info`, then `config_complete_id` echoing the nonce), answers
/// every packet with a `queueStatus`, and — when given an air radio — sends our packets
/// over a ``SimulatedRadio`` and hands what it hears back as `FromRadio.packet` with the
/// reception's RSSI and SNR, so two emulated nodes on one simulated medium carry frames
/// between two drivers. ``reboot()`` announces `rebooted` and requires a new handshake;
/// ``isSilent`` makes it ignore everything (a hung node).
final class MeshtasticNodeEmulator: Sendable {
    struct Settings: Sendable {
        var nodeNumber: UInt32 = 0x1A2B_3C4D
        var firmwareVersion = "2.5.6.d55c08d"
        var channelName = "LongFast"
        /// The `free` of each queue status; a test sets it to 0 for a full queue.
        var queueFree: UInt32 = 15
        var queueSize: UInt32 = 16
    }

    private struct State {
        var settings: Settings
        var silent = false
        var handshakeDone = false
        var toRadio: [MeshtasticToRadio] = []
        /// Every byte the driver wrote, unparsed (for the conformance script).
        var raw: [UInt8] = []
        var wantConfigs = 0
        var statusesSent = 0
    }

    let pty: PseudoTerminalPair
    private let air: SimulatedRadio?
    private let state: Mutex<State>
    private let tasks = Mutex<[Task<Void, Never>]>([])

    var slavePath: String { pty.slavePath }

    init(settings: Settings = Settings(), air: SimulatedRadio? = nil) throws {
        pty = try PseudoTerminalPair()
        self.air = air
        state = Mutex(State(settings: settings))
        let serial = Task { [self] in await self.serveSerial() }
        var all = [serial]
        if air != nil { all.append(Task { [self] in await self.serveAir() }) }
        tasks.withLock { $0 = all }
    }

    /// Stops the emulator and unplugs the device.
    func stop() {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        air?.close()
        pty.closeMaster()
    }

    var isSilent: Bool {
        get { state.withLock { $0.silent } }
        set { state.withLock { $0.silent = newValue } }
    }

    var queueFree: UInt32 {
        get { state.withLock { $0.settings.queueFree } }
        set { state.withLock { $0.settings.queueFree = newValue } }
    }

    var received: [MeshtasticToRadio] { state.withLock { $0.toRadio } }
    var rawInput: [UInt8] { state.withLock { $0.raw } }
    var wantConfigCount: Int { state.withLock { $0.wantConfigs } }
    var handshakeDone: Bool { state.withLock { $0.handshakeDone } }

    /// Our packets the node took (decoded), in order.
    var packets: [MeshtasticMeshPacket] {
        received.compactMap { message in
            if case .packet(let packet) = message { return packet }
            return nil
        }
    }

    /// Announces a reboot; packets are ignored until the next handshake.
    func reboot() throws {
        state.withLock { $0.handshakeDone = false }
        try pty.write(Array("INFO  | Rebooting\n".utf8))
        try send(.rebooted(true))
    }

    /// Sends a `FromRadio` as the node would.
    func send(_ variant: MeshtasticFromRadio.Variant) throws {
        try pty.write(MeshtasticFraming.frame(MeshtasticFromRadio(id: UInt32.random(in: 1...1_000_000), variant).encoded()))
    }

    /// Writes bytes as they are (debug text, garbage).
    func writeRaw(_ bytes: [UInt8]) throws {
        try pty.write(bytes)
    }

    /// Hands the driver a packet as if heard on the mesh.
    func deliver(_ packet: MeshtasticMeshPacket) throws {
        try send(.packet(packet))
    }

    // MARK: - Serial side

    private func serveSerial() async {
        var decoder = MeshtasticFrameDecoder()
        while !Task.isCancelled, pty.isMasterOpen {
            let bytes = (try? await pty.read(count: 1, timeout: .milliseconds(200))) ?? []
            if bytes.isEmpty {
                // Nothing, or no slave open right now (the driver is reconnecting).
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            state.withLock { $0.raw += bytes }
            for event in decoder.push(bytes) {
                guard case .frame(let payload) = event,
                      let message = try? MeshtasticToRadio.decode(payload) else { continue }
                await handle(message)
            }
        }
    }

    private func handle(_ message: MeshtasticToRadio) async {
        let (silent, settings) = state.withLock { state -> (Bool, Settings) in
            if !state.silent { state.toRadio.append(message) }
            return (state.silent, state.settings)
        }
        guard !silent else { return }
        switch message {
        case .wantConfigID(let nonce):
            state.withLock { $0.wantConfigs += 1 }
            try? pty.write(Array("DEBUG | [SerialConsole] want_config_id \(nonce)\r\n".utf8))
            try? send(.myInfo(MeshtasticMyNodeInfo(myNodeNum: settings.nodeNumber, rebootCount: 3)))
            try? send(.metadata(MeshtasticDeviceMetadata(firmwareVersion: settings.firmwareVersion, deviceStateVersion: 23, hardwareModel: 43)))
            try? pty.write(Array("INFO  | [SerialConsole] sending config\n".utf8))
            try? send(.nodeInfo(MeshtasticNodeInfo(num: settings.nodeNumber, userID: "!1a2b3c4d", longName: "Emulated node", shortName: "EMU")))
            try? send(.channel(MeshtasticChannel(index: 0, name: settings.channelName, role: .primary)))
            try? send(.config(MeshtasticLoRaConfig(usePreset: true, modemPreset: 0, region: 3, hopLimit: 3, txEnabled: true, txPower: 27)))
            try? send(.other(9))
            try? send(.configCompleteID(nonce))
            state.withLock { $0.handshakeDone = true }
        case .packet(var packet):
            guard state.withLock({ $0.handshakeDone }) else { return }
            try? send(.queueStatus(MeshtasticQueueStatus(res: 0, free: settings.queueFree, maxlen: settings.queueSize, meshPacketID: packet.id)))
            state.withLock { $0.statusesSent += 1 }
            guard let air else { return }
            packet.from = settings.nodeNumber
            packet.hopStart = packet.hopLimit
            try? await air.transmit(packet.encoded(), airtime: .milliseconds(5))
        case .heartbeat, .disconnect, .other:
            break
        }
    }

    // MARK: - Air side

    private func serveAir() async {
        guard let air else { return }
        while !Task.isCancelled {
            guard let reception = try? await air.receive() else { return }
            guard var packet = try? MeshtasticMeshPacket(decoding: reception.bytes) else { continue }
            let (silent, ready) = state.withLock { ($0.silent, $0.handshakeDone) }
            guard !silent, ready else { continue }
            packet.rxRSSI = Int32(reception.rssi.rounded())
            packet.rxSNR = Float(reception.snr)
            packet.rxTime = UInt32(Date().timeIntervalSince1970)
            try? deliver(packet)
        }
    }
}
