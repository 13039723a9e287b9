import CDriftSys
import DriftSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A real pseudo-terminal pair standing in for a serial device in tests.
///
/// The test opens ``slavePath`` (`/dev/pts/N`) with the code under test, as it
/// would open `/dev/ttyUSB0`, and plays the device on the master side with
/// ``write(_:)`` and the `read` helpers. ``closeMaster()`` simulates unplugging
/// the device: the slave side then reads `EIO` and polls `POLLHUP`. A device
/// that "comes back" is a new pair (a new `/dev/pts/N`).
///
/// The master descriptor is non-blocking and waited on with `ReadinessMonitor`,
/// so the async read helpers never block a thread.
public final class PseudoTerminalPair: Sendable {
    /// The slave device path, e.g. `/dev/pts/3`.
    public let slavePath: String

    private let master: Mutex<FileDescriptor?>
    private let readiness: ReadinessMonitor
    private let readGate = Mutex(false)
    /// Bytes read from the master after the marker a ``read(until:timeout:)`` waited for:
    /// the next read starts with them.
    private let unread = Mutex<[UInt8]>([])

    /// Opens a new pty master (`posix_openpt`, `grantpt`, `unlockpt`) and looks up its slave path.
    public init() throws(SystemError) {
        let (descriptor, slave) = try PseudoTerminalMaster.open()
        self.slavePath = slave
        self.master = Mutex(descriptor)
        self.readiness = ReadinessMonitor(descriptor: descriptor, label: "drift.test.pty")
    }

    deinit {
        closeMaster()
    }

    /// The master descriptor, or `nil` after ``closeMaster()``.
    public var masterDescriptor: FileDescriptor? {
        master.withLock { $0 }
    }

    /// Whether the master (the simulated device) is still there.
    public var isMasterOpen: Bool { masterDescriptor != nil }

    /// Sends `bytes` to the slave side, as if the device transmitted them.
    /// - Throws: ``SystemError`` (`EBADF` after ``closeMaster()``).
    public func write(_ bytes: [UInt8]) throws(SystemError) {
        try master.withLock { (descriptor: inout FileDescriptor?) throws(SystemError) in
            guard let descriptor else { throw SystemError(operation: "write", errno: EBADF, subject: slavePath) }
            try descriptor.writeAll(bytes)
        }
    }

    /// Reads what the slave side sent until `count` bytes arrived, `timeout`
    /// elapsed, or the slave side was closed; returns what arrived.
    public func read(count: Int, timeout: Duration = .seconds(5)) async throws -> [UInt8] {
        try await read(timeout: timeout) { received in received.count >= count ? received.count : nil }
    }

    /// Reads until `marker` has arrived (or `timeout` elapsed, or the slave side was closed);
    /// returns what arrived up to the marker's first appearance, marker included. What came
    /// after it in the same read is kept for the next read: a command the code under test
    /// sends right after the awaited one must neither hide the marker nor be lost.
    public func read(until marker: [UInt8], timeout: Duration = .seconds(5)) async throws -> [UInt8] {
        try await read(timeout: timeout) { received in received.firstRange(of: marker)?.upperBound }
    }

    /// Collects whatever the slave side sends within `duration`.
    public func readAll(for duration: Duration) async throws -> [UInt8] {
        try await read(timeout: duration) { _ in nil }
    }

    /// Closes the master: the simulated device is unplugged. Idempotent.
    public func closeMaster() {
        let descriptor = master.withLock { descriptor -> FileDescriptor? in
            defer { descriptor = nil }
            return descriptor
        }
        guard let descriptor else { return }
        readiness.close()
        try? descriptor.close()
    }

    /// The slave's termios, read through the master (`tcgetattr` on a pty master
    /// reports the slave's settings), to check what the code under test configured.
    public func slaveAttributes() throws(SystemError) -> termios {
        try master.withLock { (descriptor: inout FileDescriptor?) throws(SystemError) -> termios in
            guard let descriptor else { throw SystemError(operation: "tcgetattr", errno: EBADF, subject: slavePath) }
            var attributes = termios()
            try Syscall.retryingEINTR("tcgetattr", subject: slavePath) { tcgetattr(descriptor.rawValue, &attributes) }
            return attributes
        }
    }

    /// Waits until the code under test has opened the slave and configured it: a new pty is
    /// canonical (`ICANON`), and every serial port Drift Box opens is raw. Bytes written before
    /// that may sit in a canonical line buffer or fill the pty while nobody reads; a test that
    /// plays a device from the first byte waits for this instead of sleeping. Looks every 10 ms
    /// for up to `timeout`; whether the slave became raw.
    public func waitUntilRaw(timeout: Duration = .seconds(30)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if try slaveAttributes().c_lflag & tcflag_t(ICANON) == 0 { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    // MARK: - Reading

    private enum Chunk {
        case bytes([UInt8])
        case nothing
        case slaveClosed
    }

    /// Reads until `done` says how many of the bytes received so far the read returns (the
    /// rest are kept for the next read), `timeout` elapses, or the slave side closes (then it
    /// returns all it received).
    private func read(timeout: Duration, until done: ([UInt8]) -> Int?) async throws -> [UInt8] {
        let claimed = readGate.withLock { busy -> Bool in
            if busy { return false }
            busy = true
            return true
        }
        precondition(claimed, "PseudoTerminalPair: one reader at a time")
        defer { readGate.withLock { $0 = false } }

        let deadline = ContinuousClock.now + timeout
        var received = unread.withLock { unread in
            defer { unread = [] }
            return unread
        }
        while true {
            if let end = done(received) {
                unread.withLock { $0 = Array(received[end...]) }
                return Array(received[..<end])
            }
            switch try readChunk() {
            case .bytes(let bytes):
                received += bytes
                continue
            case .slaveClosed:
                return received
            case .nothing:
                break
            }
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { break }
            do {
                if try await !readiness.readable(timeout: remaining) { break }
            } catch is ReadinessMonitorClosed {
                break
            }
        }
        return received
    }

    private func readChunk() throws(SystemError) -> Chunk {
        try master.withLock { (descriptor: inout FileDescriptor?) throws(SystemError) -> Chunk in
            guard let descriptor else { return .slaveClosed }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let result: Result<Int?, SystemError> = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) -> Int? in try descriptor.read(into: raw) }
            }
            switch result {
            case .success(nil):
                return .nothing
            case .success(0?):
                return .slaveClosed
            case .success(let count?):
                return .bytes(Array(buffer[..<count]))
            case .failure(let error) where error.errno == EIO:
                // No slave descriptor is open (the code under test closed the port).
                return .slaveClosed
            case .failure(let error):
                throw error
            }
        }
    }
}
