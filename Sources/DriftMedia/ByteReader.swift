/// A bounds-checked cursor over part of a byte array. Every read checks the bytes
/// remaining first and throws `truncated` naming `context`, so parsers never index
/// out of range and never trust a size before comparing it with what is left.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int
    let end: Int
    /// Names the structure being read, for error messages.
    var context: String

    init(_ bytes: [UInt8], context: String) {
        self.bytes = bytes
        self.offset = 0
        self.end = bytes.count
        self.context = context
    }

    private init(bytes: [UInt8], offset: Int, end: Int, context: String) {
        self.bytes = bytes
        self.offset = offset
        self.end = end
        self.context = context
    }

    var remaining: Int { end - offset }
    var isAtEnd: Bool { offset >= end }

    /// Throws unless `count` more bytes are available; `count` may be any size.
    func require(_ count: UInt64) throws(MediaProbeError) {
        guard count <= UInt64(remaining) else { throw .truncated(context) }
    }

    mutating func skip(_ count: UInt64) throws(MediaProbeError) {
        try require(count)
        offset += Int(count)
    }

    /// A reader over the next `count` bytes; this reader moves past them.
    /// Moves back one byte; only after a read.
    mutating func stepBack() {
        precondition(offset > 0, "stepBack before any read")
        offset -= 1
    }

    mutating func split(_ count: UInt64, context: String) throws(MediaProbeError) -> ByteReader {
        try require(count)
        let sub = ByteReader(bytes: bytes, offset: offset, end: offset + Int(count), context: context)
        offset += Int(count)
        return sub
    }

    /// A reader over everything left; this reader ends up at its end.
    mutating func rest(context: String) -> ByteReader {
        let sub = ByteReader(bytes: bytes, offset: offset, end: end, context: context)
        offset = end
        return sub
    }

    func peek(_ index: Int = 0) throws(MediaProbeError) -> UInt8 {
        guard index >= 0, index < remaining else { throw .truncated(context) }
        return bytes[offset + index]
    }

    /// True when the next bytes equal `ascii` (false when fewer bytes remain).
    func hasPrefix(_ ascii: String) -> Bool {
        let expected = Array(ascii.utf8)
        guard expected.count <= remaining else { return false }
        return bytes[offset..<offset + expected.count].elementsEqual(expected)
    }

    mutating func u8() throws(MediaProbeError) -> UInt8 {
        guard offset < end else { throw .truncated(context) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func bigEndian(_ width: Int) throws(MediaProbeError) -> UInt64 {
        try require(UInt64(width))
        var value: UInt64 = 0
        for i in 0..<width { value = value << 8 | UInt64(bytes[offset + i]) }
        offset += width
        return value
    }

    mutating func littleEndian(_ width: Int) throws(MediaProbeError) -> UInt64 {
        try require(UInt64(width))
        var value: UInt64 = 0
        for i in (0..<width).reversed() { value = value << 8 | UInt64(bytes[offset + i]) }
        offset += width
        return value
    }

    mutating func u16be() throws(MediaProbeError) -> Int { Int(try bigEndian(2)) }
    mutating func u32be() throws(MediaProbeError) -> UInt32 { UInt32(try bigEndian(4)) }
    mutating func u64be() throws(MediaProbeError) -> UInt64 { try bigEndian(8) }
    mutating func u16le() throws(MediaProbeError) -> Int { Int(try littleEndian(2)) }
    mutating func u24le() throws(MediaProbeError) -> Int { Int(try littleEndian(3)) }
    mutating func u32le() throws(MediaProbeError) -> UInt32 { UInt32(try littleEndian(4)) }
    mutating func u64le() throws(MediaProbeError) -> UInt64 { try littleEndian(8) }

    /// The next `count` bytes as a four-character code or short label: up to the first
    /// NUL (Matroska pads strings with them), other bytes outside printable ASCII as "?".
    mutating func ascii(_ count: Int) throws(MediaProbeError) -> String {
        try require(UInt64(count))
        let field = bytes[offset..<offset + count]
        let text = String(decoding: field.prefix { $0 != 0 }.map { (0x20..<0x7F).contains($0) ? $0 : 0x3F }, as: UTF8.self)
        offset += count
        return text
    }

    /// The bytes between `range` of the underlying array, for checksums.
    func slice(from start: Int, to stop: Int) -> ArraySlice<UInt8> { bytes[start..<stop] }
}
