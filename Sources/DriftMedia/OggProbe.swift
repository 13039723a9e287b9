/// Measures an Ogg file's audio duration from its pages.
///
/// Every page is walked (capture pattern, version, segment table, CRC). The first
/// logical stream whose first packet is an Opus (`OpusHead`) or Vorbis identification
/// header is measured: its last page's granule position, minus the pre-skip over
/// 48 000 for Opus, over the sample rate for Vorbis.
enum OggProbe {
    static func matches(_ bytes: [UInt8]) -> Bool { bytes.starts(with: Array("OggS".utf8)) }

    static func measure(_ bytes: [UInt8]) throws(MediaProbeError) -> AudioMeasurement {
        var r = ByteReader(bytes, context: "Ogg page")
        var serial: UInt32?
        var codec: String?
        var preSkip: Int64 = 0
        var sampleRate: Int64 = 0
        var lastGranule: Int64?
        while !r.isAtEnd {
            let start = r.offset
            guard r.hasPrefix("OggS") else { throw .malformed("Ogg: lost page sync at byte \(start)") }
            try r.skip(4)
            guard try r.u8() == 0 else { throw .malformed("Ogg: page version is not 0 at byte \(start)") }
            let headerType = try r.u8()
            let granule = Int64(bitPattern: try r.u64le())
            let pageSerial = try r.u32le()
            try r.skip(4)  // sequence number
            let crcOffset = r.offset
            let crc = try r.u32le()
            let segmentCount = Int(try r.u8())
            var bodySize = 0
            var firstPacketSize = 0
            var firstPacketDone = false
            for _ in 0..<segmentCount {
                let lace = Int(try r.u8())
                bodySize += lace
                if !firstPacketDone {
                    firstPacketSize += lace
                    firstPacketDone = lace < 255
                }
            }
            var body = try r.split(UInt64(bodySize), context: "Ogg page body")
            guard crc == OggCRC.checksum(r.slice(from: start, to: r.offset), zeroing: crcOffset - start) else {
                throw .malformed("Ogg: CRC mismatch in the page at byte \(start)")
            }
            if serial == nil, headerType & 0x02 != 0 {
                var packet = try body.split(UInt64(firstPacketSize), context: "Ogg identification header")
                if packet.hasPrefix("OpusHead") {
                    try packet.skip(10)  // magic, version, channel count
                    preSkip = Int64(try packet.u16le())
                    sampleRate = 48_000
                    codec = "opus"
                    serial = pageSerial
                } else if packet.hasPrefix("\u{01}vorbis") {
                    try packet.skip(12)  // type, magic, version, channel count
                    sampleRate = Int64(try packet.u32le())
                    guard sampleRate > 0 else { throw .malformed("Ogg: Vorbis sample rate 0") }
                    codec = "vorbis"
                    serial = pageSerial
                }
            } else if pageSerial == serial, granule != -1 {
                lastGranule = granule
            }
        }
        guard let codec else { throw MediaProbeError(.noAudioTrack, "Ogg: no Opus or Vorbis stream") }
        guard let lastGranule, lastGranule > preSkip else {
            throw MediaProbeError(.noDuration, "Ogg: the \(codec) stream has no granule position past its start")
        }
        return AudioMeasurement(durationSeconds: Double(lastGranule - preSkip) / Double(sampleRate), codec: codec, source: .granule)
    }
}
