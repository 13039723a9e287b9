/// Why protobuf bytes could not be read: what was wrong at which offset.
public struct ProtobufDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// The bytes end inside a field.
        case truncated
        /// A varint longer than ten bytes.
        case varintTooLong
        /// Field number 0 or above 2^29 − 1.
        case invalidFieldNumber(UInt64)
        /// Wire type 6 or 7, or a group (Meshtastic uses none).
        case unsupportedWireType(UInt8)
        /// A string field that is not UTF-8.
        case invalidUTF8(field: Int)
        /// Messages nested deeper than the reader allows.
        case tooDeep
    }

    public var reason: Reason
    /// Offset into the message being read.
    public var offset: Int
    /// Which message was being read, e.g. `FromRadio`.
    public var message: String

    public init(_ reason: Reason, offset: Int, message: String) {
        self.reason = reason
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(message): \(reason) at byte \(offset)" }
}
