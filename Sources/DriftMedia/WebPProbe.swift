/// Reads a WebP's dimensions from its first chunk: VP8 (lossy key frame header),
/// VP8L (lossless header) or VP8X (extended: canvas size). The RIFF size must fit
/// in the file, so truncated uploads are refused.
enum WebPProbe {
    static func matches(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8)
    }

    static func probe(_ bytes: [UInt8]) throws(MediaProbeError) -> (width: Int, height: Int) {
        var file = ByteReader(bytes, context: "WebP")
        try file.skip(4)
        let riffSize = try file.u32le()
        guard riffSize >= 4 + 8 else { throw .malformed("WebP: RIFF size \(riffSize) too small") }
        var r = try file.split(UInt64(riffSize), context: "WebP")
        try r.skip(4)  // "WEBP"
        let fourCC = try r.ascii(4)
        let chunkSize = try r.u32le()
        var chunk = try r.split(UInt64(chunkSize), context: "WebP chunk \(fourCC)")
        switch fourCC {
        case "VP8 ":
            let tag = try chunk.littleEndian(3)
            guard tag & 1 == 0 else { throw .malformed("WebP: VP8 data is not a key frame") }
            guard try chunk.u8() == 0x9D, try chunk.u8() == 0x01, try chunk.u8() == 0x2A else {
                throw .malformed("WebP: VP8 start code missing")
            }
            let width = try chunk.u16le() & 0x3FFF
            let height = try chunk.u16le() & 0x3FFF
            guard width > 0, height > 0 else { throw .malformed("WebP: VP8 size \(width)x\(height)") }
            return (width, height)
        case "VP8L":
            guard try chunk.u8() == 0x2F else { throw .malformed("WebP: VP8L signature missing") }
            let bits = try chunk.u32le()
            guard bits >> 29 == 0 else { throw .malformed("WebP: VP8L version \(bits >> 29)") }
            return (Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            let flags = try chunk.u8()
            try chunk.skip(3)
            let width = try chunk.u24le() + 1
            let height = try chunk.u24le() + 1
            guard r.remaining >= 8 else { throw .malformed("WebP: VP8X without image data (flags 0x\(hex(flags)))") }
            return (width, height)
        default:
            throw .malformed("WebP: first chunk is \(fourCC), not VP8, VP8L or VP8X")
        }
    }
}
