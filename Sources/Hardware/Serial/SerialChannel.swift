import CDriftSys
import DriftSystem
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The I/O half shared by both serial backends: a configured, non-blocking tty
/// descriptor with readiness waits, disconnect detection and an idempotent close.
///
/// Syscalls on the descriptor run under `state`'s lock, and `close()` flips
/// `isOpen` under the same lock before the descriptor is released, so a read
/// can never hit a closed (or reused) descriptor number.
final class SerialChannel: Sendable {
    let path: String
    let descriptor: FileDescriptor
    let settings: SerialSettings

    private let readiness: ReadinessMonitor
    private let writability: WritabilityMonitor
    private let readGate = SerialAsyncGate()
    private let writeGate = SerialAsyncGate()
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var isOpen = true
        var isDisconnected = false
        /// Closes the descriptor (and frees backend resources); taken by `close()`.
        var release: (@Sendable () -> Void)?
    }

    /// Takes over `descriptor`, which must already be configured and non-blocking.
    /// `release` closes it; it runs exactly once, from ``close()`` or `deinit`.
    init(
        path: String,
        descriptor: FileDescriptor,
        settings: SerialSettings,
        logger: Logger,
        release: @escaping @Sendable () -> Void
    ) {
        self.path = path
        self.descriptor = descriptor
        self.settings = settings
        self.logger = logger
        self.readiness = ReadinessMonitor(descriptor: descriptor, label: "drift.serial.read")
        self.writability = WritabilityMonitor(descriptor: descriptor, label: "drift.serial.write")
        self.state = Mutex(State(release: release))
    }

    deinit {
        close()
    }

    /// A read is parked on the descriptor's readiness (``SerialPort/isWaitingForInput``).
    var isWaitingForInput: Bool { readiness.isWaiting }

    // MARK: Reading

    func read(upTo maxCount: Int, timeout: Duration?) async throws -> [UInt8] {
        precondition(maxCount > 0, "read size must be positive")
        return try await readGate.withGate {
            let deadline = timeout.map { ContinuousClock.now + $0 }
            var wokenByReadiness = false
            while true {
                if let bytes = try readAvailable(maxCount) {
                    return bytes
                }
                if wokenByReadiness {
                    // Readiness without data: either a racing reader-side flush, or a
                    // hang-up that read(2) does not report. Check; never loop on it.
                    try checkHangUp()
                }
                var wait: Duration?
                if let deadline {
                    let remaining = deadline - ContinuousClock.now
                    if remaining <= .zero { return [] }
                    wait = remaining
                }
                let ready: Bool
                do {
                    ready = try await readiness.readable(timeout: wait)
                } catch is ReadinessMonitorClosed {
                    throw SerialError.closed(path: path)
                }
                if !ready {
                    return try readAvailable(maxCount) ?? []
                }
                wokenByReadiness = true
            }
        }
    }

    /// One non-blocking `read(2)`: bytes, or `nil` if nothing is buffered.
    private func readAvailable(_ maxCount: Int) throws(SerialError) -> [UInt8]? {
        try state.withLock { (state: inout State) throws(SerialError) -> [UInt8]? in
            guard state.isOpen else { throw .closed(path: path) }
            guard !state.isDisconnected else { throw .disconnected(path: path) }
            var buffer = [UInt8](repeating: 0, count: maxCount)
            let result: Result<Int?, SystemError> = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) -> Int? in try descriptor.read(into: raw) }
            }
            switch result {
            case .success(nil):
                return nil
            case .success(0?):
                // VMIN is 1, so 0 is never "no data": the line was hung up.
                markDisconnected(&state, because: "read returned end of file")
                throw .disconnected(path: path)
            case .success(let count?):
                buffer.removeSubrange(count...)
                return buffer
            case .failure(let error):
                let mapped = SerialError.transfer(error, path: path)
                if case .disconnected = mapped { markDisconnected(&state, because: error.description) }
                throw mapped
            }
        }
    }

    /// Throws `.disconnected` if `poll(2)` reports a hang-up or error condition.
    private func checkHangUp() throws(SerialError) {
        try state.withLock { (state: inout State) throws(SerialError) in
            guard state.isOpen else { throw .closed(path: path) }
            let revents: Int16
            do throws(SystemError) {
                revents = try descriptor.poll(events: Int16(POLLIN), timeoutMilliseconds: 0)
            } catch {
                throw .system(path: path, error)
            }
            if revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                markDisconnected(&state, because: "poll reported hang-up (revents \(revents))")
                throw .disconnected(path: path)
            }
        }
    }

    // MARK: Writing

    func write(_ bytes: [UInt8], timeout: Duration?) async throws {
        guard !bytes.isEmpty else {
            try ensureUsable()
            return
        }
        try await writeGate.withGate {
            let deadline = timeout.map { ContinuousClock.now + $0 }
            var offset = 0
            var wokenByReadiness = false
            while offset < bytes.count {
                if let written = try writeSome(bytes, from: offset) {
                    offset += written
                    wokenByReadiness = false
                    continue
                }
                if wokenByReadiness { try checkHangUp() }
                var wait: Duration?
                if let deadline {
                    let remaining = deadline - ContinuousClock.now
                    if remaining <= .zero { throw SerialError.timeout(path: path, operation: "write") }
                    wait = remaining
                }
                let ready: Bool
                do {
                    ready = try await writability.writable(timeout: wait)
                } catch is ReadinessMonitorClosed {
                    throw SerialError.closed(path: path)
                }
                if !ready { throw SerialError.timeout(path: path, operation: "write") }
                wokenByReadiness = true
            }
        }
    }

    /// One non-blocking `write(2)` of `bytes[offset...]`: the count taken, or `nil` if the buffer is full.
    private func writeSome(_ bytes: [UInt8], from offset: Int) throws(SerialError) -> Int? {
        try state.withLock { (state: inout State) throws(SerialError) -> Int? in
            guard state.isOpen else { throw .closed(path: path) }
            guard !state.isDisconnected else { throw .disconnected(path: path) }
            let result: Result<Int?, SystemError> = bytes.withUnsafeBytes { raw in
                Result { () throws(SystemError) -> Int? in
                    try descriptor.write(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                }
            }
            switch result {
            case .success(let count):
                return count == 0 ? nil : count
            case .failure(let error):
                let mapped = SerialError.transfer(error, path: path)
                if case .disconnected = mapped { markDisconnected(&state, because: error.description) }
                throw mapped
            }
        }
    }

    /// Waits until the output queue is empty: sleeps for about the time the queued
    /// bytes take on the wire at this baud rate, re-checks, then `tcdrain`s the last character.
    func drain(timeout: Duration?) async throws {
        try await writeGate.withGate {
            let deadline = timeout.map { ContinuousClock.now + $0 }
            while true {
                let queued = try outputQueueCount()
                if queued == 0 { break }
                if let deadline, ContinuousClock.now >= deadline {
                    throw SerialError.timeout(path: path, operation: "drain")
                }
                let wireTime = Duration.seconds(Double(queued * settings.bitsPerCharacter) / Double(settings.baudRate))
                var pause = min(max(wireTime, .milliseconds(1)), .milliseconds(100))
                if let deadline { pause = min(pause, max(deadline - ContinuousClock.now, .milliseconds(1))) }
                try await Task.sleep(for: pause)
            }
            try state.withLock { (state: inout State) throws(SerialError) in
                guard state.isOpen else { throw .closed(path: path) }
                guard !state.isDisconnected else { throw .disconnected(path: path) }
                do throws(SystemError) {
                    try Syscall.retryingEINTR("tcdrain", subject: path) { tcdrain(descriptor.rawValue) }
                } catch {
                    throw SerialError.transfer(error, path: path)
                }
            }
        }
    }

    private func outputQueueCount() throws(SerialError) -> Int {
        try state.withLock { (state: inout State) throws(SerialError) -> Int in
            guard state.isOpen else { throw .closed(path: path) }
            guard !state.isDisconnected else { throw .disconnected(path: path) }
            var count: CInt = 0
            do throws(SystemError) {
                try Syscall.retryingEINTR("ioctl(TIOCOUTQ)", subject: path) {
                    drift_tty_output_queue(descriptor.rawValue, &count)
                }
            } catch {
                let mapped = SerialError.transfer(error, path: path)
                if case .disconnected = mapped { markDisconnected(&state, because: error.description) }
                throw mapped
            }
            return Int(count)
        }
    }

    private func ensureUsable() throws(SerialError) {
        try state.withLock { (state: inout State) throws(SerialError) in
            guard state.isOpen else { throw .closed(path: path) }
            guard !state.isDisconnected else { throw .disconnected(path: path) }
        }
    }

    // MARK: Closing

    /// Closes the descriptor once; wakes pending reads and writes with `.closed`.
    func close() {
        let release = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.isOpen else { return nil }
            state.isOpen = false
            defer { state.release = nil }
            return state.release
        }
        guard let release else { return }
        readiness.close()
        writability.close()
        release()
        logger.debug("serial port closed", metadata: ["path": "\(path)"])
    }

    private func markDisconnected(_ state: inout State, because reason: String) {
        guard !state.isDisconnected else { return }
        state.isDisconnected = true
        logger.warning("serial port disconnected", metadata: ["path": "\(path)", "reason": "\(reason)"])
    }
}
