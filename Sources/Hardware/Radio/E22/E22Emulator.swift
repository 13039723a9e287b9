import DriftSystem
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A software E22 module behind a real pseudo-terminal, for tests and the sim board.
///
/// It plays the module on the pty's master side: reads the mode from the M0/M1 lines of a
/// ``SimulatedGPIODriver`` (the lines the driver under test drives), drives AUX (low while
/// busy), answers the register protocol in configuration mode (`C0`/`C2` write, `C1` read,
/// `FF FF FF` for anything else; commands arriving while the slave side is not set to 9600
/// baud are ignored, as a real module would see garbage), and in normal mode sends each
/// written burst as packets of at most the sub-packet size through its ``SimulatedRadio``
/// (the air side), writing packets heard from the medium to the UART with the RSSI byte
/// appended when REG3 bit 7 is set. Ambient-noise reads (`C0 C1 C2 C3 00 len`) answer when
/// REG1 bit 5 is set.
///
/// Not emulated: real baud timing (a pty moves bytes at once), parity/framing errors, WOR
/// and sleep behaviour (bytes are dropped), LBT, relay and fixed-point addressing, the
/// radio channel (the air side's channel is fixed when the ``SimulatedRadio`` is made and
/// does not follow REG2/REG0), and the persistent/temporary distinction of `C0`/`C2`.
public final class E22Emulator: Sendable {
    /// The GPIO line names the module's pins are wired to.
    public struct Wiring: Sendable, Equatable {
        public var m0: String
        public var m1: String
        /// `nil`: AUX not wired.
        public var aux: String?

        public init(m0: String, m1: String, aux: String?) {
            self.m0 = m0
            self.m1 = m1
            self.aux = aux
        }
    }

    /// What the emulator did, for tests.
    public struct Counters: Sendable, Equatable {
        public var commands = 0
        public var formatErrors = 0
        /// Configuration commands ignored because the UART was not at 9600 baud.
        public var wrongBaud = 0
        public var packetsSent = 0
        public var packetsHeard = 0
        /// Bytes dropped because the module was not in a mode that takes them.
        public var droppedBytes = 0
    }

    private struct State {
        var registers: E22Registers
        var ignored: Set<Int> = []
        var answering = true
        var rssiAnswerDelay: Duration = .zero
        var ambientNoiseDBm: Double
        var lastPacketRSSI: UInt8 = 0
        var counters = Counters()
        var tasks: [Task<Void, Never>] = []
        var stopped = false
    }

    private let master: FileDescriptor
    private let monitor: ReadinessMonitor
    private let gpio: SimulatedGPIODriver
    private let wiring: Wiring
    private let air: SimulatedRadio
    private let state: Mutex<State>
    /// Silence that ends a burst written to the UART.
    private let burstGap: Duration
    /// Pause after each packet written to the UART, so the driver sees the idle gap.
    private let packetGap: Duration

    /// An emulator on the pty master `master` (owned by the caller; keep it open until
    /// ``stop()``), with mode pins on `gpio` and `air` as its radio (owned by the emulator:
    /// ``stop()`` closes it).
    public init(
        master: FileDescriptor, gpio: SimulatedGPIODriver, wiring: Wiring, air: SimulatedRadio,
        registers: E22Registers = E22Registers(), ambientNoiseDBm: Double = -110,
        burstGap: Duration = .milliseconds(10), packetGap: Duration = .milliseconds(60)
    ) {
        self.master = master
        self.monitor = ReadinessMonitor(descriptor: master, label: "drift.e22.emulator")
        self.gpio = gpio
        self.wiring = wiring
        self.air = air
        self.state = Mutex(State(registers: registers, ambientNoiseDBm: ambientNoiseDBm))
        self.burstGap = burstGap
        self.packetGap = packetGap
    }

    deinit { stop() }

    /// Starts serving the UART and the air side.
    public func start() {
        setAux(state.withLock { $0.answering })
        let uart = Task { [self] in await uartLoop() }
        let radio = Task { [self] in await airLoop() }
        state.withLock { $0.tasks = [uart, radio] }
    }

    /// Stops both loops, closes the air side. Idempotent.
    public func stop() {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            defer { state.tasks = []; state.stopped = true }
            return state.stopped ? [] : state.tasks
        }
        tasks.forEach { $0.cancel() }
        monitor.close()
        air.close()
    }

    /// The module goes silent: no answers, no packets, AUX held low (busy).
    public func stopAnswering() {
        state.withLock { $0.answering = false }
        setAux(false)
    }

    /// A slow module: the answer to an RSSI read comes this long after the read (`.zero`, the
    /// default: at once).
    public func answerRSSIReads(after delay: Duration) {
        state.withLock { $0.rssiAnswerDelay = delay }
    }

    /// Undoes ``stopAnswering()``.
    public func resumeAnswering() {
        state.withLock { $0.answering = true }
        setAux(true)
    }

    /// Writes to the register at `address` are answered but not stored (a module that
    /// does not take a setting).
    public func ignoreWrites(toRegister address: Int) {
        state.withLock { _ = $0.ignored.insert(address) }
    }

    /// The module's registers now.
    public var registers: E22Registers { state.withLock { $0.registers } }
    public var counters: Counters { state.withLock { $0.counters } }

    /// Sets the ambient noise the module reports, dBm.
    public func setAmbientNoise(dBm: Double) {
        state.withLock { $0.ambientNoiseDBm = dBm }
    }

    /// The mode the M0/M1 lines select now.
    public var mode: E22Mode {
        let m0 = (try? gpio.level(line: wiring.m0)) ?? false
        let m1 = (try? gpio.level(line: wiring.m1)) ?? false
        return E22Mode(m0: m0, m1: m1)
    }

    /// The RSSI register byte for `dBm` (`256 + dBm`, clamped to 1…255).
    public static func rssiByte(dBm: Double) -> UInt8 {
        UInt8(min(255, max(1, Int((256 + dBm).rounded()))))
    }

    private func setAux(_ high: Bool) {
        guard let aux = wiring.aux else { return }
        try? gpio.drive(line: aux, to: high)
    }

    // MARK: UART side

    private func uartLoop() async {
        while !Task.isCancelled {
            guard let burst = await readBurst() else { return }
            if burst.isEmpty { continue }
            handle(burst: burst)
        }
    }

    /// The next burst written by the driver; empty after a hang-up pause; `nil` once stopped.
    private func readBurst() async -> [UInt8]? {
        var burst: [UInt8] = []
        while true {
            let ready: Bool
            do {
                ready = try await monitor.readable(timeout: burst.isEmpty ? nil : burstGap)
            } catch {
                return nil
            }
            if !ready { return burst }
            var buffer = [UInt8](repeating: 0, count: 1024)
            do {
                let count = try buffer.withUnsafeMutableBytes { bytes throws(SystemError) in try master.read(into: bytes) }
                guard let count else { continue }
                if count == 0 { return burst }
                burst += buffer.prefix(count)
            } catch {
                // EIO: the slave side is closed (the driver is reopening it). Wait and look again.
                if !burst.isEmpty { return burst }
                do { try await Task.sleep(for: .milliseconds(5)) } catch { return nil }
                return []
            }
        }
    }

    private func handle(burst: [UInt8]) {
        let (answering, registers) = state.withLock { ($0.answering, $0.registers) }
        guard answering else {
            state.withLock { $0.counters.droppedBytes += burst.count }
            return
        }
        switch mode {
        case .configuration:
            guard slaveBaud() == E22Mode.configurationBaud else {
                state.withLock { $0.counters.wrongBaud += 1 }
                return
            }
            configure(burst)
        case .normal:
            if let command = E22Command(normalBytes: burst), registers.ambientNoiseEnabled,
               case let .readRSSI(address, length) = command {
                let (values, delay) = state.withLock { state -> ([UInt8], Duration) in
                    ([Self.rssiByte(dBm: state.ambientNoiseDBm), state.lastPacketRSSI], state.rssiAnswerDelay)
                }
                let answer = E22Response.registers(address: address, data: Array(values.prefix(Int(length)))).bytes
                guard delay > .zero else {
                    reply(answer)
                    return
                }
                let late = Task { [self] in
                    try? await Task.sleep(for: delay)
                    if !Task.isCancelled { reply(answer) }
                }
                state.withLock { $0.tasks.append(late) }
                return
            }
            let chunks = stride(from: 0, to: burst.count, by: registers.subPacketBytes).map {
                Array(burst[$0..<min($0 + registers.subPacketBytes, burst.count)])
            }
            let task = Task { [self] in
                for chunk in chunks {
                    setAux(false)
                    try? await air.transmit(chunk, airtime: registers.airRate.timeOnAir(bytes: chunk.count))
                    state.withLock { $0.counters.packetsSent += 1 }
                    if state.withLock({ $0.answering }) { setAux(true) }
                }
            }
            _ = task
        case .wakeOnRadio, .sleep:
            state.withLock { $0.counters.droppedBytes += burst.count }
        }
    }

    private func configure(_ burst: [UInt8]) {
        state.withLock { $0.counters.commands += 1 }
        guard let command = E22Command(configurationBytes: burst) else {
            state.withLock { $0.counters.formatErrors += 1 }
            reply(E22Command.formatError)
            return
        }
        switch command {
        case let .write(address, data, _):
            state.withLock { state in
                var bytes = state.registers.bytes
                for (index, byte) in data.enumerated() where !state.ignored.contains(Int(address) + index) {
                    bytes[Int(address) + index] = byte
                }
                state.registers = E22Registers(bytes: bytes)
            }
            reply(E22Response.registers(address: address, data: data).bytes)
        case let .read(address, length):
            var bytes = state.withLock { $0.registers.bytes }
            bytes[7] = 0
            bytes[8] = 0
            let start = Int(address)
            reply(E22Response.registers(address: address, data: Array(bytes[start..<(start + Int(length))])).bytes)
        case .readRSSI:
            state.withLock { $0.counters.formatErrors += 1 }
            reply(E22Command.formatError)
        }
    }

    private func reply(_ bytes: [UInt8]) {
        try? master.writeAll(bytes, timeoutMilliseconds: 1_000)
    }

    /// The baud the slave side is set to (a pty master reports its slave's termios).
    private func slaveBaud() -> Int? {
        guard var attributes = try? SerialTerminalAttributes.get(master, path: "pty master") else { return nil }
        let speed = cfgetospeed(&attributes)
        return SerialSettings.supportedBaudRates.first { SerialTerminalAttributes.speed(for: $0) == speed }
    }

    // MARK: Air side

    private func airLoop() async {
        while !Task.isCancelled {
            let heard: RadioReception?
            do {
                heard = try await air.receive()
            } catch {
                do { try await Task.sleep(for: .milliseconds(20)) } catch { return }
                continue
            }
            guard let heard else { return }
            let (answering, registers) = state.withLock { ($0.answering, $0.registers) }
            let rssi = Self.rssiByte(dBm: heard.rssi)
            state.withLock {
                $0.lastPacketRSSI = rssi
                $0.counters.packetsHeard += 1
            }
            guard answering, mode == .normal else { continue }
            setAux(false)
            reply(heard.bytes + (registers.packetRSSIEnabled ? [rssi] : []))
            try? await Task.sleep(for: packetGap)
            if state.withLock({ $0.answering }) { setAux(true) }
        }
    }
}
