/// Why camp bytes could not be encoded or decoded. Hostile input ends here, never in a trap.
public enum CampCodecError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No header byte.
    case empty
    /// A version this build does not speak.
    case badVersion(UInt8)
    /// A kind nibble naming no message.
    case badKind(UInt8)
    /// The bytes end inside `field`.
    case truncated(field: String)
    /// Bytes left over after the last field.
    case trailingBytes(Int)
    /// A text field that is not UTF-8.
    case invalidUTF8(field: String)
    /// A text field longer than its limit, or empty where it must not be.
    case badLength(field: String, length: Int, allowed: ClosedRange<Int>)
    /// An enum byte naming nothing (`field`, value).
    case badEnum(field: String, value: UInt8)
    /// A latitude or longitude outside its range.
    case badPosition

    public var description: String {
        switch self {
        case .empty: "no bytes"
        case .badVersion(let v): "camp protocol version \(v) is not spoken here (only \(CampMessage.version))"
        case .badKind(let k): "camp message kind \(k) is unknown"
        case .truncated(let field): "the bytes end inside \(field)"
        case .trailingBytes(let n): "\(n) byte(s) after the last field"
        case .invalidUTF8(let field): "\(field) is not UTF-8"
        case .badLength(let field, let length, let allowed): "\(field) is \(length) bytes; allowed \(allowed.lowerBound)…\(allowed.upperBound)"
        case .badEnum(let field, let value): "\(field) \(value) names nothing"
        case .badPosition: "latitude or longitude out of range"
        }
    }
}
