/// The duration of an Opus packet from its TOC byte (RFC 6716 §3.1).
enum OpusPacket {
    /// Duration of one Opus frame for the TOC's configuration, times the frame count
    /// code's frames (code 3 packets give the count in the next byte, not known here:
    /// they count as one frame, the shortest plausible).
    static func durationNanoseconds(toc: UInt8) -> Double {
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
        default: 1
        }
        return frameMilliseconds * frames * 1_000_000
    }
}
