import DriftSystem
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A serial port driven by plain termios: works on any tty, including
/// pseudo-terminals (`/dev/pts/N`), which libserialport refuses.
///
/// Opens with `O_NOCTTY | O_NONBLOCK`, takes an exclusive `flock` (a second
/// opener gets ``SerialError/busy(path:)``), and configures raw mode with the
/// given framing. Usually created through ``SerialPorts/open(path:settings:logger:)``.
public final class TermiosSerialPort: SerialPort {
    public let path: String
    public var backend: SerialBackend { .termios }
    public var settings: SerialSettings { channel.settings }
    public var isWaitingForInput: Bool { channel.isWaitingForInput }

    private let channel: SerialChannel

    /// Opens `path` as is (symlinks are followed by `open(2)` but not recorded).
    /// - Throws: ``SerialError``: `.unsupportedBaud` before touching the device;
    ///   `.notFound`, `.permissionDenied`, `.busy`, `.notATerminal`, `.system`.
    public init(
        path: String,
        settings: SerialSettings = SerialSettings(),
        logger: Logger = Logger(label: "drift.serial")
    ) throws(SerialError) {
        try settings.validate(path: path)
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
        } catch {
            throw SerialError.opening(error, path: path)
        }
        do {
            try SerialPortLock.lock(descriptor, path: path)
            try SerialTerminalAttributes.configure(descriptor, settings: settings, path: path)
        } catch {
            try? descriptor.close()
            throw error
        }
        self.path = path
        self.channel = SerialChannel(
            path: path, descriptor: descriptor, settings: settings, logger: logger,
            release: { try? descriptor.close() }
        )
    }

    deinit {
        channel.close()
    }

    public func read(upTo maxCount: Int, timeout: Duration?) async throws -> [UInt8] {
        try await channel.read(upTo: maxCount, timeout: timeout)
    }

    public func write(_ bytes: [UInt8], timeout: Duration?) async throws {
        try await channel.write(bytes, timeout: timeout)
    }

    public func drain(timeout: Duration?) async throws {
        try await channel.drain(timeout: timeout)
    }

    public func close() {
        channel.close()
    }
}
