/// Appends protobuf (proto3) fields to a byte buffer: the few wire types Meshtastic's
/// serial API needs, written by hand instead of generated (see docs/meshtastic.md).
///
/// Proto3 default values (0, `false`, empty) are skipped like a generated encoder does,
/// except where a caller passes `always: true` (a oneof member must appear even when 0).
public struct ProtobufWriter: Sendable {
    /// The message so far (append raw bytes here only to build unusual test input).
    public var bytes: [UInt8] = []

    public init() {}

    /// A varint: 7 bits a byte, least significant group first.
    public static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
        return out
    }

    mutating func key(_ field: Int, _ type: ProtobufWireType) {
        bytes += Self.varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    /// `uint32`, `uint64`, `bool` or an enum.
    public mutating func uint(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        key(field, .varint)
        bytes += Self.varint(value)
    }

    /// `int32` / `int64`: a negative value is sign-extended to 64 bits (ten bytes), as protobuf does.
    public mutating func int(_ field: Int, _ value: Int64, always: Bool = false) {
        uint(field, UInt64(bitPattern: value), always: always)
    }

    /// `sint32` / `sint64` (zigzag).
    public mutating func sint(_ field: Int, _ value: Int64) {
        uint(field, UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    public mutating func bool(_ field: Int, _ value: Bool) {
        uint(field, value ? 1 : 0)
    }

    /// `fixed32` (little-endian).
    public mutating func fixed32(_ field: Int, _ value: UInt32, always: Bool = false) {
        guard value != 0 || always else { return }
        key(field, .fixed32)
        bytes += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                  UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
    }

    /// `float` (IEEE 754 single, little-endian).
    public mutating func float(_ field: Int, _ value: Float) {
        guard value != 0 else { return }
        fixed32(field, value.bitPattern, always: true)
    }

    /// `bytes` or an embedded message.
    public mutating func lengthDelimited(_ field: Int, _ value: [UInt8], always: Bool = false) {
        guard !value.isEmpty || always else { return }
        key(field, .lengthDelimited)
        bytes += Self.varint(UInt64(value.count))
        bytes += value
    }

    public mutating func string(_ field: Int, _ value: String) {
        lengthDelimited(field, Array(value.utf8))
    }
}
