/// Reads a PNG's dimensions from IHDR after checking the signature, then walks every
/// chunk to IEND checking lengths and CRCs, so truncated or corrupted files are refused.
enum PNGProbe {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func matches(_ bytes: [UInt8]) -> Bool { bytes.starts(with: signature) }

    static func probe(_ bytes: [UInt8]) throws(MediaProbeError) -> (width: Int, height: Int) {
        var r = ByteReader(bytes, context: "PNG")
        try r.skip(8)
        var size: (width: Int, height: Int)?
        var sawData = false
        while true {
            let length = try r.u32be()
            guard length <= 0x7FFF_FFFF else { throw .malformed("PNG: chunk length \(length) too large") }
            let typeStart = r.offset
            let type = try r.ascii(4)
            r.context = "PNG chunk \(type)"
            var data = try r.split(UInt64(length), context: "PNG chunk \(type)")
            let crc = try r.u32be()
            guard crc == CRC32.checksum(r.slice(from: typeStart, to: typeStart + 4 + Int(length))) else {
                throw .malformed("PNG: CRC mismatch in chunk \(type)")
            }
            r.context = "PNG"
            if size == nil {
                guard type == "IHDR", length == 13 else { throw .malformed("PNG: first chunk is \(type), not a 13-byte IHDR") }
                let width = try data.u32be()
                let height = try data.u32be()
                let depth = try data.u8()
                let colour = try data.u8()
                guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
                    throw .malformed("PNG: size \(width)x\(height)")
                }
                guard [1, 2, 4, 8, 16].contains(depth), [0, 2, 3, 4, 6].contains(colour) else {
                    throw .malformed("PNG: bit depth \(depth) with colour type \(colour)")
                }
                size = (Int(width), Int(height))
                continue
            }
            switch type {
            case "IDAT": sawData = true
            case "IEND":
                guard sawData, let size else { throw .malformed("PNG: no image data before IEND") }
                return size
            case "IHDR": throw .malformed("PNG: second IHDR")
            default: break
            }
        }
    }
}
