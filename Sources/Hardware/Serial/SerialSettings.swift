/// Line settings for a serial port: baud rate, character framing and flow control.
///
/// The default is 9600 8N1 without flow control (the NMEA 0183 default).
/// Ports are always opened in raw mode (see ``SerialPort``); these settings only
/// choose the framing. Call ``validate(path:)`` to check them without opening.
public struct SerialSettings: Sendable, Hashable, Codable {
    /// Bits per character (`CS5`…`CS8`).
    public enum DataBits: Int, Sendable, Hashable, Codable, CaseIterable {
        case five = 5, six = 6, seven = 7, eight = 8
    }

    /// Parity bit (`PARENB`, `PARODD`).
    public enum Parity: String, Sendable, Hashable, Codable, CaseIterable {
        case none, odd, even
    }

    /// Stop bits (`CSTOPB` for two).
    public enum StopBits: Int, Sendable, Hashable, Codable, CaseIterable {
        case one = 1, two = 2
    }

    /// Flow control: none, or hardware RTS/CTS (`CRTSCTS`). Software XON/XOFF is
    /// never used, so every byte value passes through.
    public enum FlowControl: String, Sendable, Hashable, Codable, CaseIterable {
        case none
        case rtsCts = "rts-cts"
    }

    /// The baud rates Drift Box accepts: the standard termios rates from 1200 to 921600.
    public static let supportedBaudRates: [Int] = [
        1200, 1800, 2400, 4800, 9600, 19200, 38400, 57600,
        115_200, 230_400, 460_800, 500_000, 576_000, 921_600,
    ]

    public var baudRate: Int
    public var dataBits: DataBits
    public var parity: Parity
    public var stopBits: StopBits
    public var flowControl: FlowControl

    public init(
        baudRate: Int = 9600,
        dataBits: DataBits = .eight,
        parity: Parity = .none,
        stopBits: StopBits = .one,
        flowControl: FlowControl = .none
    ) {
        self.baudRate = baudRate
        self.dataBits = dataBits
        self.parity = parity
        self.stopBits = stopBits
        self.flowControl = flowControl
    }

    /// Throws ``SerialError/unsupportedBaud(path:baudRate:)`` unless ``baudRate`` is
    /// one of ``supportedBaudRates``. `path` only labels the error.
    public func validate(path: String) throws(SerialError) {
        guard Self.supportedBaudRates.contains(baudRate) else {
            throw .unsupportedBaud(path: path, baudRate: baudRate)
        }
    }

    /// Bits on the wire per character: start bit, data bits, parity bit, stop bits.
    public var bitsPerCharacter: Int {
        1 + dataBits.rawValue + (parity == .none ? 0 : 1) + stopBits.rawValue
    }
}

extension SerialSettings: CustomStringConvertible {
    /// E.g. `115200 8N1` or `9600 7E2 rts-cts`.
    public var description: String {
        let parityLetter: String
        switch parity {
        case .none: parityLetter = "N"
        case .odd: parityLetter = "O"
        case .even: parityLetter = "E"
        }
        let framing = "\(baudRate) \(dataBits.rawValue)\(parityLetter)\(stopBits.rawValue)"
        return flowControl == .none ? framing : "\(framing) \(flowControl.rawValue)"
    }
}
