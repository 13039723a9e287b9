/// An open serial port: an async byte stream in, bytes out.
///
/// Ports are always raw (cfmakeraw semantics: no echo, no canonical lines, no
/// CR/LF translation, no XON/XOFF, 8 bits pass unchanged) with the framing of
/// ``settings``. Open one with ``SerialPorts/open(path:settings:logger:)``,
/// which picks the backend.
///
/// Reads and writes wait on the descriptor's readiness (epoll through
/// `ReadinessMonitor`), never on a polling thread. Concurrent readers are
/// served one after another, as are concurrent writers, so one `write` is never
/// interleaved with another. A far end that goes away is reported as
/// ``SerialError/disconnected(path:)`` by the read or write that notices it, and
/// by every call after that: close the port and open the device again.
public protocol SerialPort: AnyObject, Sendable {
    /// The device the port was opened on (symlinks resolved), e.g. `/dev/ttyUSB0`.
    var path: String { get }
    /// Which implementation drives this port.
    var backend: SerialBackend { get }
    /// The line settings in effect.
    var settings: SerialSettings { get }
    /// Whether a ``read(upTo:timeout:)`` found nothing buffered and is parked on the
    /// descriptor's readiness, waiting for input (what a test acting on a waiting read checks).
    var isWaitingForInput: Bool { get }

    /// Waits for input and returns what is there, at most `maxCount` bytes.
    ///
    /// - Parameters:
    ///   - maxCount: the largest chunk to return; must be positive.
    ///   - timeout: how long to wait for the first byte; `nil` waits until input,
    ///     disconnection, close or cancellation; `.zero` only takes what is buffered.
    /// - Returns: 1…`maxCount` bytes, or an empty array when `timeout` elapsed.
    /// - Throws: ``SerialError`` (`.disconnected`, `.closed`, `.system`) or
    ///   `CancellationError` when the waiting task is cancelled.
    func read(upTo maxCount: Int, timeout: Duration?) async throws -> [UInt8]

    /// Writes all of `bytes`, waiting while the kernel's output buffer is full.
    ///
    /// Returns once the kernel has taken every byte (not when they left the wire;
    /// see ``drain(timeout:)``).
    /// - Parameter timeout: the most time to wait for buffer space; `nil` waits forever.
    /// - Throws: ``SerialError`` (`.timeout`, `.disconnected`, `.closed`, `.system`)
    ///   or `CancellationError`. After a timeout or cancellation some prefix of
    ///   `bytes` may have been sent.
    func write(_ bytes: [UInt8], timeout: Duration?) async throws

    /// Waits until everything written has been transmitted (`TIOCOUTQ` empty, then `tcdrain`).
    /// - Throws: ``SerialError/timeout(path:operation:)`` if output is still queued after `timeout`.
    func drain(timeout: Duration?) async throws

    /// Closes the port. Idempotent; pending and later calls throw
    /// ``SerialError/closed(path:)``. Ports also close when released.
    func close()
}

extension SerialPort {
    /// How long ``write(_:)`` and ``drain()`` wait by default: 10 s.
    public static var defaultWriteTimeout: Duration { .seconds(10) }

    /// Writes all of `bytes`, giving up after ``defaultWriteTimeout``.
    public func write(_ bytes: [UInt8]) async throws {
        try await write(bytes, timeout: Self.defaultWriteTimeout)
    }

    /// Writes the UTF-8 bytes of `text`, giving up after ``defaultWriteTimeout``.
    public func write(_ text: String) async throws {
        try await write(Array(text.utf8), timeout: Self.defaultWriteTimeout)
    }

    /// Waits until everything written was transmitted, at most ``defaultWriteTimeout``.
    public func drain() async throws {
        try await drain(timeout: Self.defaultWriteTimeout)
    }

    /// Input as an async sequence of byte chunks (each 1…`maximumCount` bytes).
    ///
    /// The sequence ends when the port is closed or the iterating task is
    /// cancelled, and throws ``SerialError/disconnected(path:)`` when the far end
    /// goes away. Iterate it from one task.
    public func chunks(maximumCount: Int = 4096) -> SerialByteChunks {
        SerialByteChunks(port: self, maximumCount: maximumCount)
    }
}
