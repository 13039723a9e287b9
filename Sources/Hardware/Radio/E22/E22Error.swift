/// What went wrong with an E22 module, and where.
public enum E22Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// No (complete) answer to a command within the timeout: the module stopped answering,
    /// is unpowered, or is not in configuration mode (M1 not wired?).
    case noAnswer(command: String, timeout: Duration)
    /// The module answered `FF FF FF` (it took the command as malformed).
    case formatError(command: String)
    /// The module answered something that is not an answer to the command.
    case unexpectedAnswer(command: String, bytes: [UInt8])
    /// A register read back differently from what was written.
    case registerMismatch(register: String, wrote: UInt8, read: UInt8)
    /// AUX stayed low (busy) for longer than the timeout.
    case auxStuckLow(timeout: Duration, during: String)
    /// A frame larger than the configured sub-packet size (it would be cut in two on the air).
    case frameTooLarge(bytes: Int, maximum: Int)
    /// The configuration cannot be expressed in the module's registers.
    case invalidSetting(String)
    /// The module prints packets without the RSSI byte after them (REG3 bit 7 off): every
    /// packet would lose its last byte. Only a strapped module, set up by other means, or one
    /// whose register changed since the start can do this.
    case rssiByteMissing
    /// A strapped module did not answer a register read at 9600 baud: its jumpers do not hold
    /// configuration mode (``E22Radio/program(write:)``).
    case notInConfigurationMode(port: String)
    /// The UART is held by another process (its `flock`): a running driftd, most likely.
    case portBusy(port: String)
    /// The serial port or a GPIO line failed.
    case io(String)
    /// The radio was closed.
    case closed

    public var description: String {
        switch self {
        case let .noAnswer(command, timeout): "E22: no answer to \(command) within \(timeout)"
        case let .formatError(command): "E22: module answered FF FF FF (format error) to \(command)"
        case let .unexpectedAnswer(command, bytes): "E22: unexpected answer to \(command): \(E22Error.hex(bytes))"
        case let .registerMismatch(register, wrote, read):
            "E22: register \(register) reads back \(E22Error.hex([read])) after writing \(E22Error.hex([wrote]))"
        case let .auxStuckLow(timeout, during): "E22: AUX stayed low (busy) for \(timeout) during \(during)"
        case let .frameTooLarge(bytes, maximum): "E22: frame of \(bytes) bytes exceeds the sub-packet size \(maximum)"
        case let .invalidSetting(text): "E22: \(text)"
        case .rssiByteMissing:
            "E22: the module prints packets without their RSSI byte; turn on REG3 bit 7 (packet RSSI) — "
                + "with M0/M1 strapped: stop driftd, set the jumpers to configuration mode (M0 low, M1 high), "
                + "run `driftd e22 program`, set them back to normal mode (docs/e22.md)"
        case let .notInConfigurationMode(port):
            "E22: no answer on \(port) at 9600 baud to a register read: the module is not in configuration mode — "
                + "set its M0/M1 jumpers to M0 low, M1 high (docs/e22.md) and run again"
        case let .portBusy(port): "E22: \(port) is held by another process (a running driftd?)"
        case let .io(text): "E22: \(text)"
        case .closed: "E22: radio closed"
        }
    }

    /// Bytes as two uppercase hex digits each, space-separated (at most 32, then "…"), as the
    /// module's manual writes them.
    public static func hex(_ bytes: [UInt8]) -> String {
        bytes.prefix(32).map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ") + (bytes.count > 32 ? " …" : "")
    }
}
