/// Reads a JPEG's dimensions by walking its marker segments from SOI to EOI.
///
/// The frame header (SOF0…SOF15 except DHT/JPG/DAC) gives the size; APPn, COM and
/// tables are skipped by their lengths; the entropy-coded data after each SOS is
/// scanned for the next marker, so progressive files (many scans) and truncated
/// files (no EOI) are both handled. Bytes after EOI are ignored.
enum JPEGProbe {
    static func matches(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
    }

    static func probe(_ bytes: [UInt8]) throws(MediaProbeError) -> (width: Int, height: Int) {
        var r = ByteReader(bytes, context: "JPEG")
        try r.skip(2)
        var size: (width: Int, height: Int)?
        while true {
            guard try r.u8() == 0xFF else { throw .malformed("JPEG: expected a marker at byte \(r.offset - 1)") }
            var marker = try r.u8()
            while marker == 0xFF { marker = try r.u8() }  // fill bytes
            switch marker {
            case 0xD9:
                guard let size else { throw .malformed("JPEG: image ends before any frame header") }
                return size
            case 0xD0...0xD7, 0x01:
                continue
            case 0x00, 0xD8:
                throw .malformed("JPEG: unexpected marker 0x\(hex(marker)) at byte \(r.offset - 1)")
            default:
                break
            }
            let length = try r.u16be()
            guard length >= 2 else { throw .malformed("JPEG: segment 0x\(hex(marker)) has length \(length)") }
            var segment = try r.split(UInt64(length - 2), context: "JPEG segment 0x\(hex(marker))")
            switch marker {
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                guard size == nil else { throw .malformed("JPEG: second frame header") }
                _ = try segment.u8()  // sample precision
                let height = try segment.u16be()
                let width = try segment.u16be()
                guard height > 0 else { throw MediaProbeError(.unsupported, "JPEG: height 0 (defined later by a DNL marker)") }
                guard width > 0 else { throw .malformed("JPEG: width 0") }
                size = (width, height)
            case 0xDA:
                guard size != nil else { throw .malformed("JPEG: scan before the frame header") }
                try skipEntropyCodedData(&r)
            default:
                break  // APPn, COM, DQT, DHT, DRI, …
            }
        }
    }

    /// Moves to the next marker that is not a stuffed 0xFF00 or a restart marker.
    private static func skipEntropyCodedData(_ r: inout ByteReader) throws(MediaProbeError) {
        r.context = "JPEG scan data"
        while true {
            guard try r.u8() == 0xFF else { continue }
            let next = try r.peek()
            if next == 0x00 || (0xD0...0xD7).contains(next) || next == 0xFF {
                if next != 0xFF { try r.skip(1) }
                continue
            }
            r.stepBack()  // onto the 0xFF, so the marker loop reads it
            r.context = "JPEG"
            return
        }
    }
}
