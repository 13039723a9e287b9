/// Measures an ISO BMFF file's (MP4, M4A, 3GP) audio duration from its boxes.
///
/// The file must start with `ftyp`. From `moov` it reads each track's handler (`soun`),
/// `mdhd` timescale and duration, edit list (`elst`, which trims the AAC priming),
/// codec (`stsd`) and `trex` defaults, and the `mvhd` as a fallback. The duration is the
/// edit list's total when there is one, else the `mdhd` duration. Fragmented files (Safari: empty `moov`, `mvhd` duration 0) add up
/// every `trun` sample duration (per sample, else `tfhd`, else `trex` default) per track,
/// less the first edit's media time.
/// Only the boxes on those paths are entered, each by its own function, so nesting is
/// bounded by construction; every size is checked against the bytes left.
enum MP4Probe {
    static func matches(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && bytes[4..<8].elementsEqual("ftyp".utf8)
    }

    private struct Track {
        var handler: String?
        var timescale: UInt32?
        var duration: UInt64 = 0
        var codec: String?
        var defaultSampleDuration: UInt32 = 0
        var fragmentTicks: Double = 0
        var fragmentCount = 0
        /// Sum of the edit list's segment durations, movie timescale (0: no edit list).
        var editedDuration: UInt64 = 0
        /// Media time where the first non-empty edit starts (AAC priming), track timescale.
        var editMediaTime: UInt64 = 0
    }

    private struct Movie {
        var timescale: UInt32 = 0
        var duration: UInt64 = 0
        var sawMovie = false
        /// By track ID.
        var tracks: [UInt32: Track] = [:]
        var order: [UInt32] = []

        mutating func withTrack(_ id: UInt32, _ body: (inout Track) throws(MediaProbeError) -> Void) throws(MediaProbeError) {
            if tracks[id] == nil {
                guard tracks.count < 64 else { throw .malformed("MP4: more than 64 tracks") }
                tracks[id] = Track()
                order.append(id)
            }
            try body(&tracks[id]!)
        }
    }

    static func measure(_ bytes: [UInt8]) throws(MediaProbeError) -> AudioMeasurement {
        var r = ByteReader(bytes, context: "MP4")
        var movie = Movie()
        var first = true
        while !r.isAtEnd {
            var (type, body) = try nextBox(&r)
            if first {
                guard type == "ftyp" else { throw MediaProbeError(.unknownFormat, "MP4: first box is \(type), not ftyp") }
                first = false
            }
            switch type {
            case "moov":
                guard !movie.sawMovie else { throw .malformed("MP4: second moov") }
                movie.sawMovie = true
                try parseMovie(&body, into: &movie)
            case "moof":
                try parseFragment(&body, into: &movie)
            default:
                break
            }
        }
        guard movie.sawMovie else { throw .malformed("MP4: no moov box") }
        guard let id = movie.order.first(where: { movie.tracks[$0]?.handler == "soun" }), let track = movie.tracks[id] else {
            throw MediaProbeError(.noAudioTrack, "MP4: no sound track")
        }
        let duration = track.duration == UInt64(UInt32.max) || track.duration == UInt64.max ? 0 : track.duration
        if let timescale = track.timescale {
            guard timescale > 0 else { throw .malformed("MP4: sound track timescale 0") }
            if track.fragmentCount > 0 {
                let ticks = max(0, Double(duration) + track.fragmentTicks - Double(track.editMediaTime))
                return AudioMeasurement(durationSeconds: ticks / Double(timescale), codec: track.codec, source: .fragments)
            }
            if track.editedDuration > 0, movie.timescale > 0 {
                return AudioMeasurement(durationSeconds: Double(track.editedDuration) / Double(movie.timescale),
                                        codec: track.codec, source: .editList)
            }
            if duration > 0 {
                return AudioMeasurement(durationSeconds: Double(duration) / Double(timescale), codec: track.codec, source: .mediaHeader)
            }
        }
        if movie.duration > 0, movie.duration != UInt64(UInt32.max), movie.duration != UInt64.max {
            guard movie.timescale > 0 else { throw .malformed("MP4: movie timescale 0") }
            return AudioMeasurement(durationSeconds: Double(movie.duration) / Double(movie.timescale), codec: track.codec, source: .movieHeader)
        }
        throw MediaProbeError(.noDuration, "MP4: sound track has no duration and no fragments")
    }

    /// The next box's type and a reader over its body (size 0 means "to the end", 1 a 64-bit size).
    private static func nextBox(_ r: inout ByteReader) throws(MediaProbeError) -> (String, ByteReader) {
        let size32 = try r.u32be()
        let type = try r.ascii(4)
        let context = "MP4 box \(type)"
        switch size32 {
        case 0:
            return (type, r.rest(context: context))
        case 1:
            let size = try r.u64be()
            guard size >= 16 else { throw .malformed("MP4: box \(type) of size \(size)") }
            return (type, try r.split(size - 16, context: context))
        case 2..<8:
            throw .malformed("MP4: box \(type) of size \(size32)")
        default:
            return (type, try r.split(UInt64(size32) - 8, context: context))
        }
    }

    /// Calls `body` for each child box of `r`.
    private static func children(_ r: inout ByteReader, _ body: (String, inout ByteReader) throws(MediaProbeError) -> Void) throws(MediaProbeError) {
        while !r.isAtEnd {
            var (type, child) = try nextBox(&r)
            try body(type, &child)
        }
    }

    private static func parseMovie(_ r: inout ByteReader, into movie: inout Movie) throws(MediaProbeError) {
        try children(&r) { type, box throws(MediaProbeError) in
            switch type {
            case "mvhd":
                (movie.timescale, movie.duration) = try timing(&box)
            case "trak":
                try parseTrack(&box, into: &movie)
            case "mvex":
                try children(&box) { type, box throws(MediaProbeError) in
                    guard type == "trex" else { return }
                    try box.skip(4)  // version, flags
                    let id = try box.u32be()
                    try box.skip(4)  // default sample description index
                    let duration = try box.u32be()
                    try movie.withTrack(id) { track throws(MediaProbeError) in track.defaultSampleDuration = duration }
                }
            default:
                break
            }
        }
    }

    private static func parseTrack(_ r: inout ByteReader, into movie: inout Movie) throws(MediaProbeError) {
        var track = Track()
        var trackID: UInt32?
        try children(&r) { type, box throws(MediaProbeError) in
            switch type {
            case "tkhd":
                let version = try box.u8()
                try box.skip(3 + (version == 1 ? 16 : 8))
                trackID = try box.u32be()
            case "edts":
                try children(&box) { type, box throws(MediaProbeError) in
                    guard type == "elst" else { return }
                    (track.editedDuration, track.editMediaTime) = try editList(&box)
                }
            case "mdia":
                try children(&box) { type, box throws(MediaProbeError) in
                    switch type {
                    case "mdhd":
                        let (timescale, duration) = try timing(&box)
                        track.timescale = timescale
                        track.duration = duration
                    case "hdlr":
                        try box.skip(8)  // version, flags, pre_defined
                        track.handler = try box.ascii(4)
                    case "minf":
                        try children(&box) { type, box throws(MediaProbeError) in
                            guard type == "stbl" else { return }
                            try children(&box) { type, box throws(MediaProbeError) in
                                guard type == "stsd" else { return }
                                try box.skip(8)  // version, flags, entry count
                                if box.isAtEnd { return }
                                let (format, _) = try nextBox(&box)
                                track.codec = codecName(format)
                            }
                        }
                    default:
                        break
                    }
                }
            default:
                break
            }
        }
        guard let trackID else { throw .malformed("MP4: trak without tkhd") }
        try movie.withTrack(trackID) { existing throws(MediaProbeError) in
            let defaults = existing.defaultSampleDuration
            existing = track
            existing.defaultSampleDuration = defaults
        }
    }

    private static func parseFragment(_ r: inout ByteReader, into movie: inout Movie) throws(MediaProbeError) {
        try children(&r) { type, box throws(MediaProbeError) in
            guard type == "traf" else { return }
            var trackID: UInt32?
            var defaultDuration: UInt32?
            try children(&box) { type, box throws(MediaProbeError) in
                switch type {
                case "tfhd":
                    let flags = try box.bigEndian(4) & 0xFF_FFFF
                    trackID = try box.u32be()
                    if flags & 0x01 != 0 { try box.skip(8) }  // base data offset
                    if flags & 0x02 != 0 { try box.skip(4) }  // sample description index
                    if flags & 0x08 != 0 { defaultDuration = try box.u32be() }
                case "trun":
                    guard let id = trackID else { throw .malformed("MP4: trun before tfhd") }
                    let ticks = try runTicks(&box, defaultDuration: defaultDuration ?? movie.tracks[id]?.defaultSampleDuration ?? 0)
                    try movie.withTrack(id) { track throws(MediaProbeError) in
                        track.fragmentTicks += ticks
                        track.fragmentCount += 1
                    }
                default:
                    break
                }
            }
        }
    }

    /// The sum of a track run's sample durations, in the track's timescale.
    private static func runTicks(_ r: inout ByteReader, defaultDuration: UInt32) throws(MediaProbeError) -> Double {
        let flags = try r.bigEndian(4) & 0xFF_FFFF
        let count = try r.u32be()
        if flags & 0x001 != 0 { try r.skip(4) }  // data offset
        if flags & 0x004 != 0 { try r.skip(4) }  // first sample flags
        let perSample = [0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count * 4
        guard flags & 0x100 != 0 else {
            try r.require(UInt64(count) * UInt64(perSample))
            return Double(count) * Double(defaultDuration)
        }
        try r.require(UInt64(count) * UInt64(perSample))
        var ticks: Double = 0
        for _ in 0..<count {
            ticks += Double(try r.u32be())
            try r.skip(UInt64(perSample - 4))
        }
        return ticks
    }

    /// An edit list's total segment duration and the media time of its first non-empty edit.
    private static func editList(_ r: inout ByteReader) throws(MediaProbeError) -> (UInt64, UInt64) {
        let version = try r.u8()
        try r.skip(3)
        let count = try r.u32be()
        let width = version == 1 ? 8 : 4
        try r.require(UInt64(count) * UInt64(2 * width + 4))
        var total: UInt64 = 0
        var mediaTime: UInt64?
        for _ in 0..<count {
            let (sum, overflow) = total.addingReportingOverflow(try r.bigEndian(width))
            guard !overflow else { throw .malformed("MP4: edit list durations overflow") }
            total = sum
            let time = try r.bigEndian(width)
            let empty = width == 4 ? time == UInt64(UInt32.max) : time == UInt64.max
            if !empty, mediaTime == nil { mediaTime = time }
            try r.skip(4)  // media rate
        }
        return (total, mediaTime ?? 0)
    }

    /// Timescale and duration of an mvhd or mdhd (version 0: 32-bit times, version 1: 64-bit).
    private static func timing(_ r: inout ByteReader) throws(MediaProbeError) -> (UInt32, UInt64) {
        let version = try r.u8()
        try r.skip(3)
        if version == 1 {
            try r.skip(16)
            return (try r.u32be(), try r.u64be())
        }
        try r.skip(8)
        return (try r.u32be(), UInt64(try r.u32be()))
    }

    private static func codecName(_ format: String) -> String {
        switch format {
        case "mp4a": "aac"
        case "Opus": "opus"
        case "samr": "amr-nb"
        case "sawb": "amr-wb"
        case "alac": "alac"
        case "fLaC": "flac"
        case ".mp3": "mp3"
        case "ac-3": "ac3"
        case "ec-3": "eac3"
        default: format
        }
    }
}
