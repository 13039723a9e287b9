/// Measures a RIFF/WAVE file's duration: `data` chunk size over the `fmt ` byte rate.
/// A data size of 0 or 0xFFFFFFFF (written by streaming recorders) means "to the end".
enum WAVProbe {
    static func matches(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WAVE".utf8)
    }

    static func measure(_ bytes: [UInt8]) throws(MediaProbeError) -> AudioMeasurement {
        var r = ByteReader(bytes, context: "WAV")
        try r.skip(12)
        var byteRate: UInt32?
        var codec: String?
        while !r.isAtEnd {
            let id = try r.ascii(4)
            let size = try r.u32le()
            if id == "data" {
                guard let byteRate else { throw .malformed("WAV: data chunk before fmt") }
                let dataSize = size == 0 || size == UInt32.max ? UInt32(clamping: r.remaining) : size
                try r.require(UInt64(dataSize))
                return AudioMeasurement(durationSeconds: Double(dataSize) / Double(byteRate), codec: codec, source: .dataSize)
            }
            var chunk = try r.split(UInt64(size), context: "WAV chunk \(id)")
            if size & 1 == 1, !r.isAtEnd { try r.skip(1) }  // pad byte
            guard id == "fmt " else { continue }
            let format = try chunk.u16le()
            try chunk.skip(6)  // channels, sample rate
            let rate = try chunk.u32le()
            guard rate > 0 else { throw .malformed("WAV: byte rate 0") }
            byteRate = rate
            codec = switch format {
            case 1, 0xFFFE: "pcm"
            case 3: "pcm-float"
            case 6: "alaw"
            case 7: "mulaw"
            default: "wav-0x\(hex(format))"
            }
        }
        throw MediaProbeError(.noAudioTrack, "WAV: no data chunk")
    }
}
