/// The duration of an Opus packet from its TOC byte (RFC 6716 §3.1).
enum OpusPacket {
    /// Duration of one Opus frame for the TOC's configuration, times the packet's frame
    /// count: 1 for code 0, 2 for codes 1 and 2, the low six bits of `countByte` (the byte
    /// after the TOC) for code 3 (one frame when that byte is missing or says 0).
    static func durationNanoseconds(toc: UInt8, countByte: UInt8? = nil) -> Double {
        let config = Int(toc >> 3)
        let frameMilliseconds: Double
        switch config {
        case 0...11: frameMilliseconds = [10, 20, 40, 60][config % 4]
        case 12...15: frameMilliseconds = [10, 20][config % 2]
        default: frameMilliseconds = [2.5, 5, 10, 20][config % 4]
        }
        let frames: Double = switch toc & 0x03 {
        case 0: 1
        case 1, 2: 2
        default: Double(max(1, (countByte ?? 1) & 0x3F))
        }
        return frameMilliseconds * frames * 1_000_000
    }
}
