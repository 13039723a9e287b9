import CDriftSys
import DriftSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed GPIO operation: what was attempted, on which chip and line, and why.
///
/// `kind` is what callers branch on; `systemError` carries the errno reported
/// by libgpiod or the kernel (also for simulated chips, which report the errno
/// the kernel would).
public struct GPIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in terms a caller can act on.
    public enum Kind: Sendable, Equatable {
        /// No chip matches the path, name or label (`ENOENT`), or the path is not a GPIO chip.
        case chipNotFound
        /// No line has that name, or the offset is out of range.
        case lineNotFound
        /// The line is already requested by someone else (`EBUSY`).
        case lineBusy
        /// The chip disappeared after it was opened (`ENODEV`): unplugged, driver unbound.
        case chipVanished
        /// The chip handle was closed or the request released before this call.
        case released
        /// The arguments make no sense: no offsets, duplicates, wrong value count (`EINVAL`).
        case invalidArgument
        /// Two tasks waited for events of one request at the same time.
        case concurrentEventWait
        /// Any other failure; see ``GPIOError/systemError``.
        case system
    }

    public var kind: Kind
    /// The operation, e.g. `"open chip"`, `"request input"`, `"read events"`.
    public var operation: String
    /// The chip as the caller named it or as it was opened (path, name or label).
    public var chip: String?
    /// The line name or offset(s) concerned, when there are any.
    public var line: String?
    /// The errno behind the failure, when there is one.
    public var systemError: SystemError?

    public init(_ kind: Kind, operation: String, chip: String? = nil, line: String? = nil, systemError: SystemError? = nil) {
        self.kind = kind
        self.operation = operation
        self.chip = chip
        self.line = line
        self.systemError = systemError
    }

    /// Maps an errno from libgpiod (or a simulated chip) to a ``Kind``.
    ///
    /// - Parameter opening: `true` while opening a chip, where `ENODEV`/`ENOTTY`
    ///   mean "that path is not a GPIO chip" rather than "the chip went away".
    public init(errno code: Int32, operation: String, chip: String? = nil, line: String? = nil, opening: Bool = false) {
        let kind: Kind
        switch code {
        case ENOENT: kind = opening ? .chipNotFound : .lineNotFound
        case ENODEV, ENOTTY, ENXIO: kind = opening ? .chipNotFound : .chipVanished
        case EBUSY: kind = .lineBusy
        case EINVAL: kind = .invalidArgument
        default: kind = .system
        }
        let subject = [chip, line].compactMap { $0 }.joined(separator: " ")
        self.init(kind, operation: operation, chip: chip, line: line,
                  systemError: SystemError(operation: operation, errno: code, subject: subject.isEmpty ? nil : subject))
    }

    public var description: String {
        var text = "GPIO \(operation) failed"
        if let chip { text += " on chip \(chip)" }
        if let line { text += " line \(line)" }
        text += ": \(kind)"
        if let systemError { text += " (\(systemError.reason), errno \(systemError.errno))" }
        return text
    }
}
