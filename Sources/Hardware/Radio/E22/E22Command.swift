/// The E22's UART register protocol, both directions.
///
/// Host → module: `C0 addr len data…` (write, kept over power cycles), `C2 addr len data…`
/// (write, until power-off), `C1 addr len` (read); in normal mode `C0 C1 C2 C3 addr len`
/// reads the RSSI registers (00H ambient noise, 01H last packet). The module answers
/// `C1 addr len data…`, or `FF FF FF` to a malformed command.
public enum E22Command: Sendable, Equatable {
    case write(address: UInt8, data: [UInt8], persistent: Bool)
    case read(address: UInt8, length: UInt8)
    case readRSSI(address: UInt8, length: UInt8)

    /// The prefix of the normal-mode RSSI read.
    public static let rssiPrefix: [UInt8] = [0xC0, 0xC1, 0xC2, 0xC3]
    /// The module's answer to a malformed command.
    public static let formatError: [UInt8] = [0xFF, 0xFF, 0xFF]

    /// The command's bytes.
    public var bytes: [UInt8] {
        switch self {
        case let .write(address, data, persistent):
            [persistent ? 0xC0 : 0xC2, address, UInt8(truncatingIfNeeded: data.count)] + data
        case let .read(address, length):
            [0xC1, address, length]
        case let .readRSSI(address, length):
            Self.rssiPrefix + [address, length]
        }
    }

    /// Parses one whole configuration-mode command (as the module does), `nil` when the bytes
    /// are not exactly one well-formed command for registers 00H–08H. Never traps.
    public init?(configurationBytes bytes: [UInt8]) {
        guard bytes.count >= 3 else { return nil }
        let head = bytes[0], address = bytes[1], length = bytes[2]
        guard Int(address) + Int(length) <= E22Registers.count, length > 0 else { return nil }
        switch head {
        case 0xC0, 0xC2:
            guard bytes.count == 3 + Int(length) else { return nil }
            self = .write(address: address, data: Array(bytes[3...]), persistent: head == 0xC0)
        case 0xC1:
            guard bytes.count == 3 else { return nil }
            self = .read(address: address, length: length)
        default:
            return nil
        }
    }

    /// Parses a normal-mode RSSI read `C0 C1 C2 C3 addr len` (addr 0, len 1–2), else `nil`.
    public init?(normalBytes bytes: [UInt8]) {
        guard bytes.count == 6, Array(bytes.prefix(4)) == Self.rssiPrefix, bytes[4] == 0,
              (1...2).contains(bytes[5]) else { return nil }
        self = .readRSSI(address: bytes[4], length: bytes[5])
    }
}
