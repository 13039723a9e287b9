import Foundation

/// Appends big-endian fields to a byte buffer (the mesh application codecs).
struct MeshByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    mutating func u32(_ value: UInt32) { (0..<4).reversed().forEach { bytes.append(UInt8((value >> (8 * UInt32($0))) & 0xFF)) } }
    mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }
    mutating func u64(_ value: UInt64) { (0..<8).reversed().forEach { bytes.append(UInt8((value >> (8 * UInt64($0))) & 0xFF)) } }
    mutating func raw(_ data: [UInt8]) { bytes += data }
    /// A string of at most 255 UTF-8 bytes, length first (cut at a character boundary).
    mutating func shortString(_ text: String) {
        var utf8 = Array(text.utf8)
        if utf8.count > 255 {
            var cut = 255
            while cut > 0, utf8[cut] & 0xC0 == 0x80 { cut -= 1 }
            utf8 = Array(utf8[..<cut])
        }
        u8(UInt8(utf8.count))
        raw(utf8)
    }
    /// Bytes of any length up to 65 535, length (u16) first; longer input is cut.
    mutating func longBytes(_ data: [UInt8]) {
        let kept = data.prefix(Int(UInt16.max))
        u16(UInt16(kept.count))
        raw(Array(kept))
    }
}

/// Reads big-endian fields; every read returns `nil` past the end (hostile input never traps).
struct MeshByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func u8() -> UInt8? { take(1)?.first }
    mutating func u16() -> UInt16? { take(2).map { UInt16($0[0]) << 8 | UInt16($0[1]) } }
    mutating func u32() -> UInt32? { take(4).map { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } } }
    mutating func i32() -> Int32? { u32().map { Int32(bitPattern: $0) } }
    mutating func u64() -> UInt64? { take(8).map { $0.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } } }
    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
    mutating func rest() -> [UInt8] { take(remaining) ?? [] }
    mutating func shortString() -> String? {
        guard let count = u8(), let utf8 = take(Int(count)) else { return nil }
        return String(validating: utf8, as: UTF8.self)
    }
    mutating func longBytes() -> [UInt8]? {
        guard let count = u16() else { return nil }
        return take(Int(count))
    }
}
