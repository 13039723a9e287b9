/// Measures an MPEG-1/2/2.5 Layer III file's duration by walking every frame header
/// (so VBR files measure right): Σ samples per frame / sample rate. A leading ID3v2
/// tag is skipped by its size, and a first frame carrying a Xing/Info/VBRI header is not
/// counted (it is silent); trailing ID3v1 (`TAG`), ID3v2 and APE tags end the walk.
/// Free-format bitrates and Layers I/II are refused.
enum MP3Probe {
    static func matches(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: Array("ID3".utf8)) { return true }
        guard bytes.count >= 4 else { return false }
        return Frame(UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])) != nil
    }

    struct Frame {
        var length: Int
        var samples: Int
        var sampleRate: Int

        private static let bitrates1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        private static let bitrates2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]

        /// A Layer III frame header, or nil if `header` is not one.
        init?(_ header: UInt32) {
            guard header >> 21 == 0x7FF else { return nil }
            let version = Int(header >> 19 & 0x3)  // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
            let layer = header >> 17 & 0x3         // 1: Layer III
            let bitrateIndex = Int(header >> 12 & 0xF)
            let rateIndex = Int(header >> 10 & 0x3)
            guard version != 1, layer == 1, (1...14).contains(bitrateIndex), rateIndex != 3 else { return nil }
            let padding = Int(header >> 9 & 0x1)
            let mpeg1 = version == 3
            sampleRate = [44_100, 48_000, 32_000][rateIndex] >> (mpeg1 ? 0 : version == 2 ? 1 : 2)
            let bitrate = (mpeg1 ? Self.bitrates1 : Self.bitrates2)[bitrateIndex] * 1000
            samples = mpeg1 ? 1152 : 576
            length = (mpeg1 ? 144 : 72) * bitrate / sampleRate + padding
        }
    }

    static func measure(_ bytes: [UInt8]) throws(MediaProbeError) -> AudioMeasurement {
        var r = ByteReader(bytes, context: "MP3")
        if r.hasPrefix("ID3") {
            try skipID3v2(&r)
        }
        var seconds: Double = 0
        var frames = 0
        while !r.isAtEnd {
            if frames > 0, r.hasPrefix("TAG") || r.hasPrefix("ID3") || r.hasPrefix("APETAGEX") { break }
            let at = r.offset
            guard let frame = Frame(try r.u32be()) else {
                throw frames == 0 ? MediaProbeError(.unknownFormat, "MP3: no Layer III frame after the ID3 tag")
                    : .malformed("MP3: lost frame sync at byte \(at)")
            }
            r.context = "MP3 frame"
            var body = try r.split(UInt64(frame.length - 4), context: "MP3 frame")
            frames += 1
            // A first frame holding a Xing/Info (LAME) or VBRI header is silent metadata.
            if frames == 1, isInfoFrame(&body) { continue }
            seconds += Double(frame.samples) / Double(frame.sampleRate)
        }
        guard frames > 0 else { throw MediaProbeError(.noDuration, "MP3: no frames") }
        return AudioMeasurement(durationSeconds: seconds, codec: "mp3", source: .frames)
    }

    private static func isInfoFrame(_ body: inout ByteReader) -> Bool {
        for _ in 0..<40 {
            if body.hasPrefix("Xing") || body.hasPrefix("Info") || body.hasPrefix("VBRI") { return true }
            guard (try? body.skip(1)) != nil else { return false }
        }
        return false
    }

    private static func skipID3v2(_ r: inout ByteReader) throws(MediaProbeError) {
        r.context = "MP3 ID3v2 tag"
        try r.skip(5)  // "ID3", version
        let flags = try r.u8()
        var size: UInt64 = 0
        for _ in 0..<4 {
            let byte = try r.u8()
            guard byte < 0x80 else { throw .malformed("MP3: ID3v2 size is not synchsafe") }
            size = size << 7 | UInt64(byte)
        }
        try r.skip(size + (flags & 0x10 != 0 ? 10 : 0))
        r.context = "MP3"
    }
}
