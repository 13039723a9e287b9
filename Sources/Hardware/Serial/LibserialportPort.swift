import CSerialPort
import DriftSystem
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A serial port opened and configured by libserialport (`sp_get_port_by_name`,
/// `sp_open`, `sp_set_*`): kernel UARTs and USB serial/CDC devices.
///
/// libserialport only knows devices with a `/sys/class/tty/<name>` entry and
/// refuses pseudo-terminals (`sp_get_port_by_name` fails; `sp_open` fails with
/// `ENOTTY` from `TIOCMGET`) and symlinks such as `/dev/serial0`: pass a real
/// device node, or use ``SerialPorts/open(path:settings:logger:)``, which
/// resolves links and falls back to ``TermiosSerialPort``.
///
/// After configuration the descriptor (`sp_get_port_handle`) is read and
/// written non-blocking through the same readiness path as the termios backend.
public final class LibserialportPort: SerialPort {
    public let path: String
    public var backend: SerialBackend { .libserialport }
    public var settings: SerialSettings { channel.settings }
    public var isWaitingForInput: Bool { channel.isWaitingForInput }

    private let channel: SerialChannel

    /// Opens the device node `path` with libserialport.
    /// - Throws: ``SerialError``: `.unsupportedBaud` before touching the device;
    ///   `.notSupported` when libserialport refuses the device or a setting;
    ///   `.notFound`, `.permissionDenied`, `.busy`, `.system`.
    public init(
        path: String,
        settings: SerialSettings = SerialSettings(),
        logger: Logger = Logger(label: "drift.serial")
    ) throws(SerialError) {
        try settings.validate(path: path)
        var portPointer: OpaquePointer?
        try Self.check(sp_get_port_by_name(path, &portPointer), "sp_get_port_by_name", path: path)
        guard let portPointer else {
            throw .notSupported(path: path, reason: "sp_get_port_by_name returned no port")
        }
        let port = PortHandle(pointer: portPointer)
        do {
            try Self.check(sp_open(port.pointer, SP_MODE_READ_WRITE), "sp_open", path: path)
        } catch {
            sp_free_port(port.pointer)
            throw error
        }
        let descriptor: FileDescriptor
        do {
            descriptor = try Self.configure(port, settings: settings, path: path)
        } catch {
            sp_close(port.pointer)
            sp_free_port(port.pointer)
            throw error
        }
        self.path = path
        self.channel = SerialChannel(
            path: path, descriptor: descriptor, settings: settings, logger: logger,
            release: {
                sp_close(port.pointer)
                sp_free_port(port.pointer)
            }
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

    // MARK: - libserialport calls

    /// An `sp_port *` that this type owns; only used under the channel's close-once rule.
    struct PortHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private static func configure(_ port: PortHandle, settings: SerialSettings, path: String) throws(SerialError) -> FileDescriptor {
        let parity: sp_parity
        switch settings.parity {
        case .none: parity = SP_PARITY_NONE
        case .odd: parity = SP_PARITY_ODD
        case .even: parity = SP_PARITY_EVEN
        }
        let flowControl = settings.flowControl == .rtsCts ? SP_FLOWCONTROL_RTSCTS : SP_FLOWCONTROL_NONE
        try check(sp_set_baudrate(port.pointer, CInt(settings.baudRate)), "sp_set_baudrate(\(settings.baudRate))", path: path)
        try check(sp_set_bits(port.pointer, CInt(settings.dataBits.rawValue)), "sp_set_bits(\(settings.dataBits.rawValue))", path: path)
        try check(sp_set_parity(port.pointer, parity), "sp_set_parity(\(settings.parity))", path: path)
        try check(sp_set_stopbits(port.pointer, CInt(settings.stopBits.rawValue)), "sp_set_stopbits(\(settings.stopBits.rawValue))", path: path)
        try check(sp_set_flowcontrol(port.pointer, flowControl), "sp_set_flowcontrol(\(settings.flowControl))", path: path)

        var handle: CInt = -1
        try check(sp_get_port_handle(port.pointer, &handle), "sp_get_port_handle", path: path)
        let descriptor = FileDescriptor(rawValue: handle)
        do {
            try descriptor.setNonBlocking(true)
        } catch {
            throw SerialError.system(path: path, error)
        }
        try SerialPortLock.lock(descriptor, path: path)
        try SerialTerminalAttributes.makeRawReads(descriptor, path: path)
        return descriptor
    }

    /// Turns an `sp_return` into a typed error: `SP_ERR_FAIL` carries errno
    /// (`sp_last_error_code`), the others become ``SerialError/notSupported(path:reason:)``.
    static func check(_ result: sp_return, _ operation: String, path: String) throws(SerialError) {
        if result.rawValue >= 0 { return }
        switch result {
        case SP_ERR_FAIL:
            let code = sp_last_error_code()
            var message = ""
            if let text = sp_last_error_message() {
                message = String(cString: text)
                sp_free_error_message(text)
            }
            if code == ENOTTY {
                throw .notSupported(path: path, reason: "\(operation): \(message) (not a UART; e.g. a pseudo-terminal)")
            }
            throw SerialError.opening(SystemError(operation: operation, errno: code, subject: path), path: path)
        case SP_ERR_ARG:
            throw .notSupported(path: path, reason: "\(operation): libserialport rejected the argument (no /sys/class/tty entry, or an unsupported setting)")
        case SP_ERR_SUPP:
            throw .notSupported(path: path, reason: "\(operation): not supported by this device or OS")
        case SP_ERR_MEM:
            throw .system(path: path, SystemError(operation: operation, errno: ENOMEM, subject: path))
        default:
            throw .notSupported(path: path, reason: "\(operation): libserialport error \(result.rawValue)")
        }
    }
}
