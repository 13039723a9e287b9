/// The Ogg page CRC: CRC-32 with polynomial 0x04C11DB7, not reflected, initial value 0.
enum OggCRC {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n) << 24
        for _ in 0..<8 { c = c & 0x8000_0000 != 0 ? (c << 1) ^ 0x04C1_1DB7 : c << 1 }
        return c
    }

    /// The checksum of `page` with the four CRC bytes at `zeroing` counted as zero.
    static func checksum(_ page: ArraySlice<UInt8>, zeroing: Int) -> UInt32 {
        var c: UInt32 = 0
        for (i, byte) in page.enumerated() {
            let value = (zeroing..<zeroing + 4).contains(i) ? 0 : byte
            c = (c << 8) ^ table[Int(((c >> 24) ^ UInt32(value)) & 0xFF)]
        }
        return c
    }
}
