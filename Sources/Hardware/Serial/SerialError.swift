import DriftSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What went wrong with a serial port, and which port.
///
/// `path` is the device the port was opened on (after symlinks were resolved
/// by ``SerialPorts/open(path:settings:logger:)``).
public enum SerialError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No such device node (or its link target is missing).
    case notFound(path: String)
    /// The device exists but this process may not open it (add the user to `dialout`).
    case permissionDenied(path: String)
    /// Another process holds the port (its `flock`), or the kernel reports `EBUSY`.
    case busy(path: String)
    /// The path is not a terminal device (`ENOTTY`), e.g. `/dev/null` or a plain file.
    case notATerminal(path: String)
    /// The baud rate is not one of ``SerialSettings/supportedBaudRates``.
    case unsupportedBaud(path: String, baudRate: Int)
    /// The backend refused the device or a setting, with its reason
    /// (e.g. libserialport on a pseudo-terminal).
    case notSupported(path: String, reason: String)
    /// The far end went away: a USB adapter was unplugged, the pty master closed,
    /// the line hung up (read returned 0, `EIO`, `ENXIO`, `ENODEV`, or `POLLHUP`).
    /// The port stays unusable; close it and open the device again.
    case disconnected(path: String)
    /// A write or drain did not finish in time (e.g. RTS/CTS holding the line).
    case timeout(path: String, operation: String)
    /// The port was closed by its owner.
    case closed(path: String)
    /// Any other failed system call.
    case system(path: String, SystemError)

    /// The device path the error is about.
    public var path: String {
        switch self {
        case .notFound(let path), .permissionDenied(let path), .busy(let path),
             .notATerminal(let path), .unsupportedBaud(let path, _), .notSupported(let path, _),
             .disconnected(let path), .timeout(let path, _), .closed(let path), .system(let path, _):
            return path
        }
    }

    public var description: String {
        switch self {
        case .notFound(let path): return "serial port \(path): no such device"
        case .permissionDenied(let path): return "serial port \(path): permission denied"
        case .busy(let path): return "serial port \(path): in use by another process"
        case .notATerminal(let path): return "serial port \(path): not a terminal device"
        case .unsupportedBaud(let path, let baudRate):
            return "serial port \(path): unsupported baud rate \(baudRate)"
        case .notSupported(let path, let reason): return "serial port \(path): not supported: \(reason)"
        case .disconnected(let path): return "serial port \(path): disconnected"
        case .timeout(let path, let operation): return "serial port \(path): \(operation) timed out"
        case .closed(let path): return "serial port \(path): closed"
        case .system(let path, let error): return "serial port \(path): \(error)"
        }
    }

    /// Maps a failure while opening or configuring `path`.
    static func opening(_ error: SystemError, path: String) -> SerialError {
        switch error.errno {
        case ENOENT, ENXIO, ENODEV: return .notFound(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path)
        case EBUSY: return .busy(path: path)
        case ENOTTY: return .notATerminal(path: path)
        default: return .system(path: path, error)
        }
    }

    /// Maps a failure of `read`/`write`/`ioctl` on an open port: errnos that mean
    /// the device is gone become ``disconnected(path:)``.
    static func transfer(_ error: SystemError, path: String) -> SerialError {
        switch error.errno {
        case EIO, ENXIO, ENODEV, EPIPE, ESHUTDOWN: return .disconnected(path: path)
        default: return .system(path: path, error)
        }
    }
}
