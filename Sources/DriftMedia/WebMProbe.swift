/// Measures a WebM/Matroska file's audio duration with one linear EBML walk.
///
/// Master elements on the way to the data (Segment, Info, Tracks, TrackEntry, Audio,
/// Cluster, BlockGroup) are entered rather than recursed into, so unknown sizes
/// (Chromium's MediaRecorder writes unknown-size Segment and Clusters) and deep nesting
/// cost nothing; every other element is skipped by its size after checking that size
/// against the bytes left. The duration is the Info Duration element when present,
/// unless the audio blocks run on past it (by more than `durationTolerance`): then, as
/// when there is no Duration (Chromium), it is the end of the first audio track's last
/// block: cluster Timecode + block timecode + the block's duration (BlockDuration, else
/// the Opus TOC (and frame count byte) of its first frame, else DefaultDuration), minus the track's CodecDelay.
enum WebMProbe {
    /// How far the blocks may run past a Duration element before the blocks are believed instead.
    static let durationTolerance = 0.1

    static func matches(_ bytes: [UInt8]) -> Bool { bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) }

    private enum ID {
        static let ebml: UInt32 = 0x1A45_DFA3, docType: UInt32 = 0x4282
        static let segment: UInt32 = 0x1853_8067
        static let info: UInt32 = 0x1549_A966, timecodeScale: UInt32 = 0x2A_D7B1, duration: UInt32 = 0x4489
        static let tracks: UInt32 = 0x1654_AE6B, trackEntry: UInt32 = 0xAE, trackNumber: UInt32 = 0xD7
        static let trackType: UInt32 = 0x83, codecID: UInt32 = 0x86, defaultDuration: UInt32 = 0x23_E383
        static let codecDelay: UInt32 = 0x56AA
        static let audio: UInt32 = 0xE1, samplingFrequency: UInt32 = 0xB5
        static let cluster: UInt32 = 0x1F43_B675, timecode: UInt32 = 0xE7
        static let simpleBlock: UInt32 = 0xA3, blockGroup: UInt32 = 0xA0, block: UInt32 = 0xA1, blockDuration: UInt32 = 0x9B
        /// Masters walked into instead of skipped.
        static let entered: Set<UInt32> = [segment, info, tracks, trackEntry, audio, cluster, blockGroup]
    }

    private struct Track {
        var number: UInt64?
        var type: UInt64?
        var codecID: String?
        var defaultDurationNanoseconds: UInt64?
        var samplingFrequency: Double?
        var codecDelayNanoseconds: UInt64 = 0
    }

    static func measure(_ bytes: [UInt8]) throws(MediaProbeError) -> AudioMeasurement {
        var r = ByteReader(bytes, context: "WebM EBML header")
        guard try readID(&r) == ID.ebml, let headerSize = try readSize(&r) else {
            throw .malformed("WebM: EBML header has no size")
        }
        var header = try r.split(headerSize, context: "WebM EBML header")
        var docType: String?
        while !header.isAtEnd {
            let id = try readID(&header)
            guard let size = try readSize(&header) else { throw .malformed("WebM: unknown size in the EBML header") }
            if id == ID.docType {
                guard size <= 32 else { throw .malformed("WebM: DocType of \(size) bytes") }
                docType = try header.ascii(Int(size))
            } else {
                try header.skip(size)
            }
        }
        guard let docType, docType == "webm" || docType == "matroska" else {
            throw MediaProbeError(.unknownFormat, "EBML DocType \(docType ?? "missing") is not webm or matroska")
        }

        r.context = "WebM"
        var timecodeScale: UInt64 = 1_000_000
        var durationTicks: Double?
        var tracks: [Track] = []
        var inTrackEntry = false
        var clusterTimecode: UInt64 = 0
        var lastBlockStartNanoseconds: Double?
        var endNanoseconds: Double?
        var sawSegment = false

        while !r.isAtEnd {
            let id = try readID(&r)
            let size = try readSize(&r)
            if ID.entered.contains(id) {
                if let size { try r.require(size) }
                switch id {
                case ID.segment:
                    guard !sawSegment else { return try finish() }  // a second segment: measure the first
                    sawSegment = true
                case ID.trackEntry:
                    guard tracks.count < 128 else { throw .malformed("WebM: more than 128 tracks") }
                    tracks.append(Track())
                    inTrackEntry = true
                case ID.cluster:
                    inTrackEntry = false
                    clusterTimecode = 0
                default: break
                }
                continue
            }
            guard let size else { throw .malformed("WebM: element 0x\(hex(id)) has unknown size") }
            // The ID goes into the message only on failure: formatting it for every element costs.
            guard size <= UInt64(r.remaining) else { throw .truncated("WebM element 0x\(hex(id))") }
            var payload = try r.split(size, context: "WebM element")
            switch id {
            case ID.timecodeScale:
                timecodeScale = try unsigned(&payload)
                guard timecodeScale > 0 else { throw .malformed("WebM: TimecodeScale 0") }
            case ID.duration:
                durationTicks = try float(&payload)
            case ID.trackNumber where inTrackEntry:
                tracks[tracks.count - 1].number = try unsigned(&payload)
            case ID.trackType where inTrackEntry:
                tracks[tracks.count - 1].type = try unsigned(&payload)
            case ID.codecID where inTrackEntry:
                guard size <= 64 else { throw .malformed("WebM: CodecID of \(size) bytes") }
                tracks[tracks.count - 1].codecID = try payload.ascii(Int(size))
            case ID.defaultDuration where inTrackEntry:
                tracks[tracks.count - 1].defaultDurationNanoseconds = try unsigned(&payload)
            case ID.codecDelay where inTrackEntry:
                tracks[tracks.count - 1].codecDelayNanoseconds = try unsigned(&payload)
            case ID.samplingFrequency where inTrackEntry:
                tracks[tracks.count - 1].samplingFrequency = try float(&payload)
            case ID.timecode:
                clusterTimecode = try unsigned(&payload)
            case ID.simpleBlock, ID.block:
                lastBlockStartNanoseconds = nil
                guard let track = audioTrack(), let number = track.number else { break }
                guard let block = try parseBlock(&payload), block.track == number else { break }
                let start = (Double(clusterTimecode) + Double(block.relativeTimecode)) * Double(timecodeScale)
                lastBlockStartNanoseconds = start
                extend(to: start + frameDurationNanoseconds(track, block))
            case ID.blockDuration:
                if let start = lastBlockStartNanoseconds {
                    extend(to: start + Double(try unsigned(&payload)) * Double(timecodeScale))
                }
            default:
                break
            }
        }
        return try finish()

        func audioTrack() -> Track? { tracks.first { $0.type == 2 } }

        func extend(to end: Double) {
            endNanoseconds = max(endNanoseconds ?? 0, end)
        }

        func finish() throws(MediaProbeError) -> AudioMeasurement {
            guard let track = audioTrack() else { throw MediaProbeError(.noAudioTrack, "WebM: no audio track") }
            let codec = codecName(track.codecID)
            let fromElement = durationTicks.map { $0 * Double(timecodeScale) / 1e9 }
            // Blocks count from the first encoded sample; CodecDelay (Opus pre-skip) is not heard.
            let fromBlocks = endNanoseconds.map { max(0, $0 - Double(track.codecDelayNanoseconds)) / 1e9 }
            switch (fromElement, fromBlocks) {
            case let (element?, blocks?) where element.isFinite && element > 0 && blocks <= element + durationTolerance:
                return AudioMeasurement(durationSeconds: element, codec: codec, source: .durationElement)
            case let (_, blocks?):
                return AudioMeasurement(durationSeconds: blocks, codec: codec, source: .blocks)
            case let (element?, nil) where element.isFinite && element > 0:
                return AudioMeasurement(durationSeconds: element, codec: codec, source: .durationElement)
            default:
                throw MediaProbeError(.noDuration, "WebM: neither a Duration element nor audio blocks")
            }
        }
    }

    private struct Block {
        var track: UInt64
        var relativeTimecode: Int16
        var frameCount: Int
        /// The first frame's first two bytes (an Opus TOC byte and frame count byte), if present.
        var firstByte: UInt8?
        var secondByte: UInt8?
    }

    /// Reads a (Simple)Block header: track number, timecode, flags and lacing.
    private static func parseBlock(_ r: inout ByteReader) throws(MediaProbeError) -> Block? {
        guard let track = try readSize(&r) else { return nil }
        let timecode = Int16(bitPattern: UInt16(try r.bigEndian(2)))
        let flags = try r.u8()
        var frameCount = 1
        switch flags & 0x06 {
        case 0x00:
            break
        case 0x04:  // fixed-size lacing
            frameCount = Int(try r.u8()) + 1
        case 0x02:  // Xiph lacing: sizes as runs of 255
            frameCount = Int(try r.u8()) + 1
            for _ in 0..<(frameCount - 1) {
                while try r.u8() == 0xFF {}
            }
        default:  // EBML lacing: a size then signed differences, all variable-length
            frameCount = Int(try r.u8()) + 1
            for _ in 0..<(frameCount - 1) { _ = try readSize(&r) }
        }
        return Block(track: track, relativeTimecode: timecode, frameCount: frameCount,
                     firstByte: r.remaining >= 1 ? try r.peek(0) : nil, secondByte: r.remaining >= 2 ? try r.peek(1) : nil)
    }

    private static func frameDurationNanoseconds(_ track: Track, _ block: Block) -> Double {
        if track.codecID == "A_OPUS", let toc = block.firstByte {
            return OpusPacket.durationNanoseconds(toc: toc, countByte: block.secondByte) * Double(block.frameCount)
        }
        if let perFrame = track.defaultDurationNanoseconds {
            return Double(perFrame) * Double(block.frameCount)
        }
        if track.codecID?.hasPrefix("A_AAC") == true, let rate = track.samplingFrequency, rate > 0 {
            return 1024 / rate * 1e9 * Double(block.frameCount)
        }
        return 0
    }

    private static func codecName(_ codecID: String?) -> String? {
        guard let codecID else { return nil }
        switch codecID {
        case "A_OPUS": return "opus"
        case "A_VORBIS": return "vorbis"
        case "A_FLAC": return "flac"
        case let id where id.hasPrefix("A_AAC"): return "aac"
        case let id where id.hasPrefix("A_MPEG/L3"): return "mp3"
        case let id where id.hasPrefix("A_PCM"): return "pcm"
        default: return codecID
        }
    }

    /// An element ID: 1–4 bytes, length marker kept (as the IDs are written in the spec).
    private static func readID(_ r: inout ByteReader) throws(MediaProbeError) -> UInt32 {
        let first = try r.u8()
        let length = first.leadingZeroBitCount + 1
        guard length <= 4 else { throw .malformed("WebM: invalid element ID byte 0x\(hex(first)) at \(r.offset - 1)") }
        var id = UInt32(first)
        for _ in 1..<length { id = id << 8 | UInt32(try r.u8()) }
        return id
    }

    /// An element size: 1–8 bytes, marker removed; nil for "unknown" (all value bits set).
    private static func readSize(_ r: inout ByteReader) throws(MediaProbeError) -> UInt64? {
        let first = try r.u8()
        let length = first.leadingZeroBitCount + 1
        guard length <= 8 else { throw .malformed("WebM: invalid size byte 0x00 at \(r.offset - 1)") }
        var value = UInt64(first) & (0xFF >> UInt64(length))
        var allOnes = value == 0xFF >> UInt64(length)
        for _ in 1..<length {
            let byte = try r.u8()
            allOnes = allOnes && byte == 0xFF
            value = value << 8 | UInt64(byte)
        }
        return allOnes ? nil : value
    }

    private static func unsigned(_ r: inout ByteReader) throws(MediaProbeError) -> UInt64 {
        guard r.remaining <= 8 else { throw .malformed("WebM: unsigned integer of \(r.remaining) bytes") }
        return try r.bigEndian(r.remaining)
    }

    private static func float(_ r: inout ByteReader) throws(MediaProbeError) -> Double {
        switch r.remaining {
        case 4: return Double(Float(bitPattern: UInt32(try r.bigEndian(4))))
        case 8: return Double(bitPattern: try r.bigEndian(8))
        case 0: return 0
        default: throw .malformed("WebM: float of \(r.remaining) bytes")
        }
    }
}
