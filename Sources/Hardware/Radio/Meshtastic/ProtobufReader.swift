/// Reads the fields of one protobuf message, one at a time, skipping nothing by itself:
/// the caller switches on ``Field/number`` and ignores what it does not know.
///
/// Every wire type is understood, so unknown fields of any type (varint, fixed64,
/// length-delimited, fixed32, and groups, skipped to their end marker) are passed over.
/// Hostile bytes produce a ``ProtobufDecodingError``, never a crash or an unbounded loop.
public struct ProtobufReader: Sendable {
    /// One field as it appeared on the wire.
    public struct Field: Sendable, Equatable {
        public enum Value: Sendable, Equatable {
            case varint(UInt64)
            case fixed64(UInt64)
            case bytes([UInt8])
            case fixed32(UInt32)
            /// A (deprecated) group, skipped whole.
            case group
        }

        public var number: Int
        public var value: Value

        /// `uint32`, `uint64`, `bool` or an enum; `nil` for another wire type.
        public var uint64: UInt64? {
            if case .varint(let raw) = value { return raw }
            return nil
        }

        /// `uint32` (and enums): the low 32 bits, as protobuf truncates.
        public var uint32: UInt32? { uint64.map { UInt32(truncatingIfNeeded: $0) } }

        /// `int32`: the low 32 bits as a signed value (negative numbers arrive as ten-byte varints).
        public var int32: Int32? { uint64.map { Int32(truncatingIfNeeded: $0) } }

        /// `sint32`/`sint64` (zigzag).
        public var sint64: Int64? {
            uint64.map { Int64(bitPattern: ($0 >> 1) ^ (0 &- ($0 & 1))) }
        }

        public var bool: Bool? { uint64.map { $0 != 0 } }

        public var fixed32: UInt32? {
            if case .fixed32(let raw) = value { return raw }
            return nil
        }

        public var float: Float? { fixed32.map { Float(bitPattern: $0) } }

        public var bytes: [UInt8]? {
            if case .bytes(let raw) = value { return raw }
            return nil
        }

        /// A UTF-8 string; invalid UTF-8 is repaired with U+FFFD rather than refused.
        public var string: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
    }

    private let buffer: [UInt8]
    private var offset = 0
    /// Which message this is, for error messages.
    public let message: String

    public init(_ bytes: [UInt8], message: String) {
        self.buffer = bytes
        self.message = message
    }

    public var isAtEnd: Bool { offset >= buffer.count }

    /// The next field, or `nil` at the end of the message.
    public mutating func next() throws(ProtobufDecodingError) -> Field? {
        guard !isAtEnd else { return nil }
        let (number, type) = try key()
        return Field(number: number, value: try value(field: number, type: type, depth: 0))
    }

    /// Every field of `bytes` (a convenience for small messages).
    public static func fields(_ bytes: [UInt8], message: String) throws(ProtobufDecodingError) -> [Field] {
        var reader = ProtobufReader(bytes, message: message)
        var fields: [Field] = []
        while let field = try reader.next() { fields.append(field) }
        return fields
    }

    // MARK: - Wire

    private func fail(_ reason: ProtobufDecodingError.Reason) -> ProtobufDecodingError {
        ProtobufDecodingError(reason, offset: offset, message: message)
    }

    private mutating func varint() throws(ProtobufDecodingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        for _ in 0..<10 {
            guard offset < buffer.count else { throw fail(.truncated) }
            let byte = buffer[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
        throw fail(.varintTooLong)
    }

    private mutating func key() throws(ProtobufDecodingError) -> (Int, ProtobufWireType) {
        let raw = try varint()
        let number = raw >> 3
        guard number >= 1, number <= 0x1FFF_FFFF else { throw fail(.invalidFieldNumber(number)) }
        let typeBits = UInt8(raw & 7)
        guard let type = ProtobufWireType(rawValue: typeBits) else { throw fail(.unsupportedWireType(typeBits)) }
        return (Int(number), type)
    }

    private mutating func take(_ count: Int) throws(ProtobufDecodingError) -> [UInt8] {
        guard count >= 0, count <= buffer.count - offset else { throw fail(.truncated) }
        defer { offset += count }
        return Array(buffer[offset..<(offset + count)])
    }

    private mutating func little(_ count: Int) throws(ProtobufDecodingError) -> UInt64 {
        let raw = try take(count)
        var value: UInt64 = 0
        for (index, byte) in raw.enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        return value
    }

    private mutating func value(field: Int, type: ProtobufWireType, depth: Int) throws(ProtobufDecodingError) -> Field.Value {
        switch type {
        case .varint:
            return .varint(try varint())
        case .fixed64:
            return .fixed64(try little(8))
        case .fixed32:
            return .fixed32(UInt32(try little(4)))
        case .lengthDelimited:
            let length = try varint()
            guard length <= UInt64(buffer.count - offset) else { throw fail(.truncated) }
            return .bytes(try take(Int(length)))
        case .startGroup:
            guard depth < 16 else { throw fail(.tooDeep) }
            while true {
                guard !isAtEnd else { throw fail(.truncated) }
                let (inner, innerType) = try key()
                if innerType == .endGroup {
                    guard inner == field else { throw fail(.unsupportedWireType(ProtobufWireType.endGroup.rawValue)) }
                    return .group
                }
                _ = try value(field: inner, type: innerType, depth: depth + 1)
            }
        case .endGroup:
            throw fail(.unsupportedWireType(type.rawValue))
        }
    }
}
