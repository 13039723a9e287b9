import Foundation
import Synchronization

/// An Ebyte E22-xxxT22S / Waveshare SX1262 LoRa HAT on a UART, as a ``MeshRadio``.
///
/// ``start()`` (also run by the first ``receive()`` or ``transmit(_:airtime:)``, and again
/// after a failure) puts the module in configuration mode (M0 = 0, M1 = 1, UART at 9600),
/// writes the configured registers with `C0`, reads them back with `C1` and fails with
/// ``E22Error/registerMismatch(register:wrote:read:)`` naming the first register that
/// differs, then returns to normal mode (M0 = M1 = 0) at the configured baud.
///
/// Normal mode is transparent: a frame written to the UART is one packet on the air (frames
/// above the sub-packet size are refused, never cut). The module prints a received packet as
/// one burst of bytes followed by its RSSI byte; a burst ends after a UART silence of
/// ``Configuration/idleGap(baud:)``. A background reader task splits the bursts and answers
/// ambient-noise reads. Packets printed within one idle gap, or found together in the UART's
/// buffer by a reader late by more than the gap (a busy CPU), arrive as one burst: with a burst
/// check (the mesh's own check of its frames, ``BurstReading``) such a burst is handed on as
/// the packets it holds, each with its RSSI byte (``Counters/split``), and a module that prints
/// packets without their RSSI byte is reported (``E22Error/rssiByteMissing``). Errors (no
/// answer, AUX stuck low, UART gone) are thrown by the next ``receive()``/``transmit(_:airtime:)``;
/// the call after that starts the module again, so the mesh service's receive back-off is the
/// recovery loop.
///
/// Without ``Lines`` (`e22.m0 = ""`, `e22.m1 = ""`) the module's M0/M1 are strapped to normal
/// mode by jumpers: the driver cannot reach the registers, so ``start()`` only opens the UART
/// at the configured baud (the module must already hold the registers the configuration
/// names, with the packet RSSI byte on), ``registersReadBack`` stays `nil`, and the idle probe
/// runs only if the module answers one RSSI read after the start (its ambient-noise read may be
/// off: ``IdleProbe``). ``program(write:)`` sets such a module up while its jumpers hold
/// configuration mode.
public final class E22Radio: MeshRadio, Sendable {
    public let configuration: Configuration
    public var maximumFrameBytes: Int { configuration.registers.subPacketBytes }

    private let lines: Lines?
    private let openPort: @Sendable (SerialSettings) throws -> any SerialPort
    private let burstCheck: (@Sendable ([UInt8]) -> BurstReading)?

    /// What a burst read from the UART holds, as the mesh's own check of its frames sees it.
    public enum BurstReading: Sendable, Equatable {
        /// One packet and its RSSI byte (or nothing the check knows: handed on as one).
        case packet
        /// Several packets run together: the ranges of their bytes, each followed by its RSSI byte.
        case packets([Range<Int>])
        /// One whole frame with no RSSI byte after it: the module's packet RSSI is off.
        case withoutRSSIByte
    }
    private let clock = ContinuousClock()
    /// One start / transmit / query at a time on the UART.
    private let gate = SerialAsyncGate()

    private struct Pending {
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<(noise: UInt8, packet: UInt8), any Error>?
        /// No answer by the deadline is the module's failure (not when the read only asks
        /// whether a strapped module answers it at all).
        var required: Bool
    }

    /// The idle probe: an RSSI read after ``Configuration/probeInterval`` without traffic, to
    /// find a module that stopped answering.
    public enum IdleProbe: Sendable, Equatable {
        /// Not probing: no probe interval, or a strapped module that did not answer the read
        /// (its ambient-noise read is off, REG1 bit 5).
        case off
        /// A strapped module was just started: one RSSI read asks whether it answers.
        case checking
        /// Probing.
        case on
    }

    private struct State {
        var port: (any SerialPort)?
        var ready = false
        var closed = false
        var failure: E22Error?
        var packets: [RadioReception] = []
        var waiter: CheckedContinuation<Void, Never>?
        var reader: Task<Void, Never>?
        var query: Pending?
        /// When the last RSSI read that was not required went unanswered: its answer may
        /// still come (a slow module, a loaded CPU) and must not be taken for a packet.
        var queryExpiredAt: ContinuousClock.Instant?
        var readBack: E22Registers?
        var counters = Counters()
        var idleProbe = IdleProbe.off
    }

    /// What happened, for status and tests.
    public struct Counters: Sendable, Equatable {
        public var sent = 0
        public var received = 0
        /// Bursts that cannot be a packet (empty, or longer than sub-packet + RSSI byte).
        public var malformed = 0
        /// Bursts that held several packets run together, handed on one by one.
        public var split = 0
        /// Packets printed without their RSSI byte (dropped; the radio fails with
        /// ``E22Error/rssiByteMissing``).
        public var withoutRSSIByte = 0
        public var starts = 0
        /// Answers to an RSSI read that came after the driver had stopped waiting for them
        /// (dropped, not taken for packets; a strapped module's idle probe then goes on).
        public var lateAnswers = 0
    }

    private let state = Mutex(State())

    /// A driver over `lines` (`nil`: M0/M1 strapped to normal mode), opening the UART with
    /// `openPort` (default: ``SerialPorts/open(path:settings:logger:)``).
    /// `burstCheck` reads a burst with the mesh's own check of its frames (``BurstReading``;
    /// the daemon's uses `MeshSealer`); without it every burst is one packet and its RSSI byte.
    /// Nothing is sent to the module until ``start()``.
    public init(
        configuration: Configuration, lines: Lines?,
        openPort: (@Sendable (SerialSettings) throws -> any SerialPort)? = nil,
        burstCheck: (@Sendable ([UInt8]) -> BurstReading)? = nil
    ) throws(E22Error) {
        let registers = configuration.effectiveRegisters
        guard SerialSettings.supportedBaudRates.contains(registers.baudRate) else {
            throw .invalidSetting("UART baud \(registers.baudRate) is not supported")
        }
        self.configuration = configuration
        self.lines = lines
        self.burstCheck = burstCheck
        let path = configuration.portPath
        self.openPort = openPort ?? { settings in try SerialPorts.open(path: path, settings: settings) }
    }

    deinit { close() }

    public var counters: Counters { state.withLock { $0.counters } }

    /// Receptions dropped because they did not decode (``MeshRadio/malformedReceptions``).
    public var malformedReceptions: Int { counters.malformed }

    /// Bursts handed on as the several packets they held (``MeshRadio/splitBursts``).
    public var splitBursts: Int { counters.split }

    /// The registers as the module read them back at the last successful start.
    public var registersReadBack: E22Registers? { state.withLock { $0.readBack } }

    /// Whether the module is configured and in normal mode.
    public var isReady: Bool { state.withLock { $0.ready } }

    /// Whether a ``receive()`` is parked, waiting for a packet (what a test acting on a
    /// waiting receive checks).
    public var isReceiving: Bool { state.withLock { $0.waiter != nil } }

    /// Whether M0/M1 are strapped (no mode lines): registers cannot be written or read.
    public var isStrapped: Bool { lines == nil }

    /// Whether the idle probe runs (``IdleProbe``).
    public var idleProbe: IdleProbe { state.withLock { $0.idleProbe } }

    /// ``idleProbe`` as `driftd mesh status` shows it (``MeshRadio/idleProbeState``).
    public var idleProbeState: String? { "\(idleProbe)" }

    // MARK: Start

    /// Configures the module and enters normal mode; returns at once when already done.
    /// - Throws: ``E22Error``.
    public func start() async throws {
        try await gate.withGate { [self] in
            try await startLocked()
        }
    }

    private func startLocked() async throws {
        let (ready, closed) = state.withLock { ($0.ready, $0.closed) }
        if closed { throw E22Error.closed }
        if ready { return }
        stopReader()
        state.withLock { $0.counters.starts += 1 }
        let wanted = configuration.effectiveRegisters
        do {
            // Strapped to normal mode (no lines): nothing to configure, the UART runs at the configured baud.
            var readBack: E22Registers?
            if lines != nil {
                try await setMode(.configuration)
                let port = try await reopen(baud: E22Mode.configurationBaud)
                let data = try await writeRegisters(wanted, on: port)
                try await setMode(.normal)
                readBack = E22Registers(bytes: data)
            }
            let normal = try await reopen(baud: wanted.baudRate)
            state.withLock {
                if let readBack { $0.readBack = readBack }
                $0.ready = true
                // A failure recovered from before receive() saw it is not reported.
                $0.failure = nil
            }
            startReader(port: normal)
            if lines == nil, configuration.probeInterval != nil {
                // Strapped: the ambient-noise read may be off in the module (then the read goes
                // out as a 6-byte packet other boxes drop); probe only if it answers.
                Task { [weak self] in await self?.checkIdleProbe() }
            }
        } catch {
            closePort()
            if state.withLock({ $0.closed }) { throw E22Error.closed }
            throw error
        }
    }

    /// Writes all nine registers (kept over power cycles), so a key left in 07H/08H by other
    /// software is cleared (it reads back 0 either way), and reads 00H–06H back; returns them.
    /// - Throws: ``E22Error/registerMismatch(register:wrote:read:)`` naming the first that differs.
    private func writeRegisters(_ wanted: E22Registers, on port: any SerialPort) async throws -> [UInt8] {
        _ = try await exchange(E22Command.write(address: 0, data: wanted.bytes, persistent: true), on: port, expect: E22Registers.count)
        let read = E22Command.read(address: 0, length: UInt8(E22Registers.readableCount))
        let data = try await exchange(read, on: port, expect: E22Registers.readableCount)
        let wantedBytes = wanted.bytes
        for address in 0..<E22Registers.readableCount where data[address] != wantedBytes[address] {
            throw E22Error.registerMismatch(register: E22Registers.names[address], wrote: wantedBytes[address], read: data[address])
        }
        return data
    }

    /// Sets M0/M1 and waits until the module has switched (AUX high, or the fixed delay).
    private func setMode(_ mode: E22Mode) async throws {
        guard let lines else { return }
        do {
            try lines.m0.set(mode.levels.m0)
            try lines.m1.set(mode.levels.m1)
        } catch {
            throw E22Error.io("setting M0/M1 for \(mode.rawValue) mode: \(error)")
        }
        // Ebyte: the mode changes after AUX rises, plus 2 ms; without AUX wait the fixed delay.
        try await Task.sleep(for: .milliseconds(2))
        if lines.aux != nil {
            try await waitForAux(during: "switch to \(mode.rawValue) mode")
            try await Task.sleep(for: .milliseconds(2))
        } else {
            try await Task.sleep(for: configuration.modeSwitchDelay)
        }
    }

    /// Waits until AUX is high (idle); returns at once when AUX is not wired.
    private func waitForAux(during what: String) async throws {
        guard let aux = lines?.aux else { return }
        let deadline = clock.now + configuration.auxTimeout
        while true {
            let high: Bool
            do {
                high = try aux.value()
            } catch {
                throw E22Error.io("reading AUX: \(error)")
            }
            if high { return }
            if clock.now >= deadline { throw E22Error.auxStuckLow(timeout: configuration.auxTimeout, during: what) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Closes the UART and opens it again at `baud`. A port reported busy is tried again for
    /// up to `commandTimeout` (at least 2 s): our own just-closed descriptor can still hold the
    /// port's `flock` while a process being spawned has a copy of it, until that process execs.
    private func reopen(baud: Int) async throws -> any SerialPort {
        closePort()
        let deadline = clock.now + max(configuration.commandTimeout, .seconds(2))
        while true {
            do {
                let port = try openPort(SerialSettings(baudRate: baud))
                state.withLock { $0.port = port }
                return port
            } catch {
                guard case .busy? = error as? SerialError else {
                    throw E22Error.io("opening \(configuration.portPath) at \(baud) baud: \(error)")
                }
                guard clock.now < deadline else { throw E22Error.portBusy(port: configuration.portPath) }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func closePort() {
        let port = state.withLock { state -> (any SerialPort)? in
            defer { state.port = nil }
            return state.port
        }
        port?.close()
    }

    /// Sends a configuration command and returns the data of its `C1` answer.
    private func exchange(_ command: E22Command, on port: any SerialPort, expect count: Int) async throws -> [UInt8] {
        let name = E22Error.hex(Array(command.bytes.prefix(3)))
        // Drop anything left over from before.
        _ = try? await port.read(upTo: 4096, timeout: .zero)
        do {
            try await port.write(command.bytes, timeout: configuration.commandTimeout)
        } catch {
            throw E22Error.io("writing \(name): \(error)")
        }
        let deadline = clock.now + configuration.commandTimeout
        var buffer: [UInt8] = []
        while true {
            let remaining = deadline - clock.now
            guard remaining > .zero else { throw E22Error.noAnswer(command: name, timeout: configuration.commandTimeout) }
            let bytes: [UInt8]
            do {
                bytes = try await port.read(upTo: 512, timeout: remaining)
            } catch let error as SerialError {
                throw E22Error.io("reading the answer to \(name): \(error)")
            }
            buffer += bytes
            switch E22Response.parse(buffer) {
            case .incomplete:
                continue
            case .invalid:
                throw E22Error.unexpectedAnswer(command: name, bytes: buffer)
            case .complete(.formatError, _):
                throw E22Error.formatError(command: name)
            case let .complete(.registers(address, data), _):
                guard address == command.bytes[1], data.count == count else {
                    throw E22Error.unexpectedAnswer(command: name, bytes: buffer)
                }
                return data
            }
        }
    }

    // MARK: Programming

    /// What ``program(write:)`` found in the module and left there.
    public struct Programming: Sendable, Equatable {
        /// The registers 00H–06H as the module held them before (the key reads 0).
        public var before: E22Registers
        /// As read back after the write; `nil` when only read (`write: false`).
        public var after: E22Registers?
        /// What the configuration asks for (``Configuration/effectiveRegisters``).
        public var wanted: E22Registers
    }

    /// Reads the module's registers and, with `write`, writes the configured ones
    /// (``Configuration/effectiveRegisters``, all nine, kept over power cycles) and reads them
    /// back, as ``start()`` does; the module is left as found, the radio not started.
    ///
    /// For a module whose M0/M1 are strapped (no ``Lines``) this is the way to set it up from
    /// the box: its jumpers must hold configuration mode (M0 low, M1 high) while this runs and
    /// go back to normal mode after. The register read goes first, so a module still in normal
    /// mode is found out before anything is written (it sends the 3-byte read as a packet and
    /// does not answer: ``E22Error/notInConfigurationMode(port:)``). With lines, the driver
    /// switches the mode itself.
    /// - Throws: ``E22Error``; ``E22Error/registerMismatch(register:wrote:read:)`` when a
    ///   register does not read back as written.
    public func program(write: Bool) async throws -> Programming {
        try await gate.withGate { [self] in
            if state.withLock({ $0.closed }) { throw E22Error.closed }
            stopReader()
            state.withLock { $0.ready = false }
            let wanted = configuration.effectiveRegisters
            defer { closePort() }
            try await setMode(.configuration)
            let port = try await reopen(baud: E22Mode.configurationBaud)
            let read = E22Command.read(address: 0, length: UInt8(E22Registers.readableCount))
            let before: [UInt8]
            do {
                before = try await exchange(read, on: port, expect: E22Registers.readableCount)
            } catch E22Error.noAnswer where lines == nil {
                throw E22Error.notInConfigurationMode(port: configuration.portPath)
            }
            var after: E22Registers?
            if write {
                after = E22Registers(bytes: try await writeRegisters(wanted, on: port))
            }
            try await setMode(.normal)
            return Programming(before: E22Registers(bytes: before), after: after, wanted: wanted)
        }
    }

    // MARK: Normal mode

    public func transmit(_ frame: [UInt8], airtime: Duration) async throws {
        guard frame.count <= maximumFrameBytes else {
            throw E22Error.frameTooLarge(bytes: frame.count, maximum: maximumFrameBytes)
        }
        try await start()
        try await gate.withGate { [self] in
            guard let port = state.withLock({ $0.ready ? $0.port : nil }) else { throw E22Error.closed }
            do {
                try await waitForAux(during: "transmit (before)")
                do {
                    try await port.write(frame, timeout: configuration.auxTimeout)
                } catch {
                    throw E22Error.io("writing a frame: \(error)")
                }
                try await Task.sleep(for: airtime)
                try await waitForAux(during: "transmit (after)")
                state.withLock { $0.counters.sent += 1 }
            } catch let error as E22Error {
                fail(error)
                throw error
            }
        }
    }

    public func receive() async throws -> RadioReception? {
        while true {
            if state.withLock({ $0.closed }) { return nil }
            if !state.withLock({ $0.ready || $0.failure != nil }) {
                try await start()
            }
            enum Next { case packet(RadioReception), failure(E22Error), closed, wait }
            let next = state.withLock { state -> Next in
                if state.closed { return .closed }
                if !state.packets.isEmpty { return .packet(state.packets.removeFirst()) }
                if let failure = state.failure {
                    state.failure = nil
                    return .failure(failure)
                }
                return .wait
            }
            switch next {
            case let .packet(reception): return reception
            case let .failure(error): throw error
            case .closed: return nil
            case .wait: break
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.closed || !state.packets.isEmpty || state.failure != nil || Task.isCancelled { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                wake()
            }
            try Task.checkCancellation()
        }
    }

    /// The ambient noise on the channel (register 00H of the RSSI read), dBm.
    /// - Throws: ``E22Error/noAnswer(command:timeout:)`` when the module does not answer.
    public func ambientNoiseDBm() async throws -> Double {
        let values = try await rssiQuery()
        return E22Registers.dBm(rssiByte: values.noise)
    }

    private func rssiQuery() async throws -> (noise: UInt8, packet: UInt8) {
        try await start()
        return try await query()
    }

    /// Asks a strapped module just started whether it answers the RSSI read: the idle probe
    /// runs if it does; no answer is no failure.
    private func checkIdleProbe() async {
        let answered = (try? await query(required: false)) != nil
        state.withLock { state in
            if state.idleProbe == .checking { state.idleProbe = answered ? .on : .off }
        }
    }

    /// The RSSI read itself; never starts the module (the idle probe uses it too). With
    /// `required`, no answer by ``Configuration/rssiTimeout`` is the module's failure.
    private func query(required: Bool = true) async throws -> (noise: UInt8, packet: UInt8) {
        try await gate.withGate { [self] in
            guard let port = state.withLock({ $0.ready ? $0.port : nil }) else { throw E22Error.closed }
            let command = E22Command.readRSSI(address: 0, length: 2)
            let timeout = configuration.rssiTimeout
            let result: (noise: UInt8, packet: UInt8) = try await withCheckedThrowingContinuation { continuation in
                let armed = state.withLock { state -> Bool in
                    guard state.ready, !state.closed else { return false }
                    state.query = Pending(deadline: clock.now + timeout, continuation: continuation, required: required)
                    return true
                }
                guard armed else {
                    continuation.resume(throwing: E22Error.closed)
                    return
                }
                Task {
                    do {
                        try await port.write(command.bytes, timeout: timeout)
                        // The wait for the answer starts once the read is out: on a loaded CPU
                        // the write itself may come late.
                        let written = clock.now
                        state.withLock { state in
                            if let deadline = state.query?.deadline, deadline < written + timeout { state.query?.deadline = written + timeout }
                        }
                    } catch {
                        self.answerQuery(.failure(E22Error.io("writing the RSSI read: \(error)")))
                    }
                }
            }
            return result
        }
    }

    private func answerQuery(_ result: Result<(noise: UInt8, packet: UInt8), any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<(noise: UInt8, packet: UInt8), any Error>? in
            defer { state.query = nil }
            return state.query?.continuation
        }
        continuation?.resume(with: result)
    }

    /// Records a failure: the reader stops, the next ``receive()`` throws it, the call after
    /// that starts the module again.
    private func fail(_ error: E22Error) {
        state.withLock { state in
            state.ready = false
            if state.failure == nil { state.failure = error }
        }
        answerQuery(.failure(error))
        wake()
    }

    private func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    // MARK: Reader

    private func startReader(port: any SerialPort) {
        let gap = configuration.idleGap(baud: configuration.registers.baudRate)
        let probe = configuration.probeInterval
        let task = Task { [weak self] () async -> Void in
            guard let self else { return }
            await self.readLoop(port: port, gap: gap, probeInterval: probe)
        }
        // Strapped: the ambient-noise read may be off in the module, so the probe waits for its answer.
        state.withLock {
            $0.reader = task
            $0.idleProbe = probe == nil ? .off : lines == nil ? .checking : .on
        }
    }

    private func stopReader() {
        let task = state.withLock { state -> Task<Void, Never>? in
            defer { state.reader = nil }
            return state.reader
        }
        task?.cancel()
    }

    private func readLoop(port: any SerialPort, gap: Duration, probeInterval: Duration?) async {
        var lastTraffic = clock.now
        while !Task.isCancelled {
            do {
                // Wait for the first byte of a burst, waking to check the query deadline and the probe.
                let first = try await port.read(upTo: 1024, timeout: .milliseconds(100))
                let now = clock.now
                if first.isEmpty {
                    if let query = state.withLock({ $0.query }), now >= query.deadline {
                        let error = E22Error.noAnswer(command: "C0 C1 C2 C3 (RSSI read)", timeout: configuration.rssiTimeout)
                        guard query.required else {
                            state.withLock { $0.queryExpiredAt = now }
                            answerQuery(.failure(error))
                            continue
                        }
                        fail(error)
                        return
                    }
                    if let probe = probeInterval, now - lastTraffic >= probe,
                       state.withLock({ $0.query == nil && $0.idleProbe == .on }) {
                        lastTraffic = now
                        Task { [weak self] in _ = try? await self?.query() }
                    }
                    continue
                }
                var burst = first
                while true {
                    let more = try await port.read(upTo: 1024, timeout: gap)
                    if more.isEmpty { break }
                    burst += more
                }
                lastTraffic = clock.now
                handle(burst: burst)
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled || state.withLock({ $0.closed }) { return }
                fail(E22Error.io("UART \(configuration.portPath): \(error)"))
                return
            }
        }
    }

    private func handle(burst: [UInt8]) {
        let (pendingQuery, expiredAt) = state.withLock { ($0.query != nil, $0.queryExpiredAt) }
        if pendingQuery, let (values, rest) = Self.rssiAnswer(in: burst) {
            answerQuery(.success(values))
            if !rest.isEmpty { handle(burst: rest) }
            return
        }
        if !pendingQuery, let expiredAt, clock.now - expiredAt < Self.lateAnswerWindow, burst.count == 5, Self.rssiAnswer(in: burst) != nil {
            // The answer to a read the driver stopped waiting for, alone (no mesh frame is that
            // short): the module answers, slowly.
            state.withLock { state in
                state.queryExpiredAt = nil
                state.counters.lateAnswers += 1
                if state.idleProbe == .off, configuration.probeInterval != nil { state.idleProbe = .on }
            }
            return
        }
        switch burstCheck?(burst) {
        case let .packets(packets) where packets.count > 1
            && packets.allSatisfy({ $0.lowerBound >= 0 && $0.upperBound < burst.count && !$0.isEmpty }):
            let receptions = packets.map { self.reception(Array(burst[$0]), rssiByte: burst[$0.upperBound]) }
            state.withLock {
                $0.packets += receptions
                $0.counters.received += receptions.count
                $0.counters.split += 1
            }
            wake()
            return
        case .withoutRSSIByte:
            // Its last byte taken for the RSSI, the packet would not open: say why instead.
            state.withLock { $0.counters.withoutRSSIByte += 1 }
            fail(.rssiByteMissing)
            return
        case .packet, .packets, nil:
            break
        }
        guard burst.count >= 2, burst.count <= maximumFrameBytes + 1 else {
            state.withLock { $0.counters.malformed += 1 }
            return
        }
        let heard = reception(Array(burst.dropLast()), rssiByte: burst[burst.count - 1])
        state.withLock {
            $0.packets.append(heard)
            $0.counters.received += 1
        }
        wake()
    }

    /// How long after an unanswered RSSI read its answer is still recognised as such.
    static let lateAnswerWindow = Duration.seconds(30)

    /// The answer to an RSSI read (`C1 00 02` and its two values) in `burst`: alone, or run
    /// together with a packet printed just before or after it; the answer's values and the rest.
    static func rssiAnswer(in burst: [UInt8]) -> (values: (noise: UInt8, packet: UInt8), rest: [UInt8])? {
        let answer: [UInt8] = [0xC1, 0x00, 0x02]
        if burst.count >= 5, Array(burst.prefix(3)) == answer {
            return ((burst[3], burst[4]), Array(burst.dropFirst(5)))
        }
        if burst.count > 5, Array(burst.suffix(5).prefix(3)) == answer {
            return ((burst[burst.count - 2], burst[burst.count - 1]), Array(burst.dropLast(5)))
        }
        return nil
    }

    /// A packet as heard, with the RSSI byte the module printed after it.
    private func reception(_ bytes: [UInt8], rssiByte: UInt8) -> RadioReception {
        let rssi = E22Registers.dBm(rssiByte: rssiByte)
        let bandwidth = Double(configuration.registers.airRate.bandwidthHz)
        // The module reports no SNR: estimate it against the thermal noise floor (+6 dB noise figure).
        let snr = rssi - (-174 + 10 * log10(bandwidth) + 6)
        return RadioReception(bytes: bytes, rssi: rssi, snr: snr)
    }

    public func close() {
        let wasOpen = state.withLock { state -> Bool in
            defer { state.closed = true; state.ready = false }
            return !state.closed
        }
        guard wasOpen else { return }
        stopReader()
        answerQuery(.failure(E22Error.closed))
        closePort()
        wake()
        lines?.release()
    }
}
