/// What the module sent back to a command.
public enum E22Response: Sendable, Equatable {
    /// `C1 addr len data…`.
    case registers(address: UInt8, data: [UInt8])
    /// `FF FF FF`.
    case formatError

    /// The response's bytes.
    public var bytes: [UInt8] {
        switch self {
        case let .registers(address, data): [0xC1, address, UInt8(truncatingIfNeeded: data.count)] + data
        case .formatError: E22Command.formatError
        }
    }

    /// What parsing a buffer gave.
    public enum Parse: Sendable, Equatable {
        /// A whole response, and how many bytes it used.
        case complete(E22Response, consumed: Int)
        /// A valid prefix: wait for more bytes.
        case incomplete
        /// Not a response (the first byte is neither C1 nor FF).
        case invalid
    }

    /// Parses a response from the start of `buffer`. Never traps on any input.
    public static func parse(_ buffer: [UInt8]) -> Parse {
        guard let first = buffer.first else { return .incomplete }
        switch first {
        case 0xFF:
            if buffer.count < 3 { return buffer.allSatisfy { $0 == 0xFF } ? .incomplete : .invalid }
            return buffer.prefix(3).allSatisfy { $0 == 0xFF } ? .complete(.formatError, consumed: 3) : .invalid
        case 0xC1:
            guard buffer.count >= 3 else { return .incomplete }
            let length = Int(buffer[2])
            guard buffer.count >= 3 + length else { return .incomplete }
            return .complete(.registers(address: buffer[1], data: Array(buffer[3..<(3 + length)])), consumed: 3 + length)
        default:
            return .invalid
        }
    }
}
