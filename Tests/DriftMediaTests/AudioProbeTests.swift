import DriftCore
@testable import DriftMedia
import Testing

/// What ffprobe says about one audio fixture, and which path the probe should take.
struct AudioExpectation: Sendable, CustomTestStringConvertible {
    var name: String
    var format: AudioRef.Format
    var codec: String
    /// From ffprobe: the format duration, or the end of the last packet where the
    /// container has none (Chromium-style WebM).
    var seconds: Double
    var source: AudioMeasurement.Source
    var testDescription: String { name }
}

let audioExpectations: [AudioExpectation] = [
    .init(name: "chromium-1s.webm", format: .webm, codec: "opus", seconds: 1.014, source: .blocks),
    .init(name: "chromium-3s.webm", format: .webm, codec: "opus", seconds: 3.014, source: .blocks),
    .init(name: "chromium-9s.webm", format: .webm, codec: "opus", seconds: 9.014, source: .blocks),
    .init(name: "whisper-3s.webm", format: .webm, codec: "opus", seconds: 3.008, source: .durationElement),
    .init(name: "whisper-3s.mp4", format: .mp4, codec: "aac", seconds: 3.0, source: .editList),
    .init(name: "safari-3s-frag.mp4", format: .mp4, codec: "aac", seconds: 3.021333, source: .fragments),
    .init(name: "whisper-3s.m4a", format: .mp4, codec: "aac", seconds: 3.0, source: .editList),
    .init(name: "whisper-3s.3gp", format: .mp4, codec: "aac", seconds: 3.0, source: .editList),
    .init(name: "whisper-3s.opus.ogg", format: .ogg, codec: "opus", seconds: 3.0065, source: .granule),
    .init(name: "whisper-3s.vorbis.ogg", format: .ogg, codec: "vorbis", seconds: 3.0, source: .granule),
    .init(name: "whisper-3s.wav", format: .wav, codec: "pcm", seconds: 3.0, source: .dataSize),
    .init(name: "whisper-3s.mp3", format: .mpeg, codec: "mp3", seconds: 3.056327, source: .frames),
]

@Suite struct AudioProbeTests {
    @Test(arguments: audioExpectations)
    func fixtureIsMeasured(_ expected: AudioExpectation) throws {
        let info = try MediaProbe.audio(Fixture.bytes(expected.name))
        #expect(info.format == expected.format)
        #expect(info.codec == expected.codec)
        #expect(abs(info.durationSeconds - expected.seconds) <= 0.05, "measured \(info.durationSeconds) s")
    }

    @Test(arguments: audioExpectations)
    func fixtureTakesTheExpectedPath(_ expected: AudioExpectation) throws {
        let bytes = try Fixture.bytes(expected.name)
        let source = switch expected.format {
        case .webm: try WebMProbe.measure(bytes).source
        case .mp4: try MP4Probe.measure(bytes).source
        case .ogg: try OggProbe.measure(bytes).source
        case .wav: try WAVProbe.measure(bytes).source
        case .mpeg: try MP3Probe.measure(bytes).source
        }
        #expect(source == expected.source)
    }

    /// Chromium's MediaRecorder writes no Duration and unknown-size Segment and Clusters;
    /// the fixtures made like it must really lack them, or the block path goes untested.
    @Test(arguments: ["chromium-1s.webm", "chromium-3s.webm", "chromium-9s.webm"])
    func chromiumStyleFixtureHasNoDurationAndUnknownSizes(name: String) throws {
        let bytes = try Fixture.bytes(name)
        #expect(hasUnknownSize(bytes, after: [0x18, 0x53, 0x80, 0x67]), "Segment")
        #expect(hasUnknownSize(bytes, after: [0x1F, 0x43, 0xB6, 0x75]), "Cluster")
        #expect(!contains(bytes, [0x44, 0x89, 0x84]) && !contains(bytes, [0x44, 0x89, 0x88]), "Duration")
        #expect(try WebMProbe.measure(bytes).source == .blocks)
    }

    @Test func whispersFitTheDomainRangeOnlyWhenTheyShould() throws {
        let range = AudioRef.whisperDuration
        #expect(!range.contains(try MediaProbe.audio(Fixture.bytes("chromium-1s.webm")).durationSeconds))
        #expect(range.contains(try MediaProbe.audio(Fixture.bytes("chromium-3s.webm")).durationSeconds))
        #expect(!range.contains(try MediaProbe.audio(Fixture.bytes("chromium-9s.webm")).durationSeconds))
    }

    @Test func wrongMagicIsUnknownFormat() throws {
        for bytes: [UInt8] in [[], [0x1A], Array("fLaC is not accepted".utf8), try Fixture.bytes("lossy-97x61.webp")] {
            let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
            #expect(error?.code == .unknownFormat)
        }
    }

    /// The Duration element is believed unless the blocks run past it: a lying short
    /// Duration does not shorten a long recording.
    @Test(arguments: [
        (1000.0, 3.0145, AudioMeasurement.Source.blocks),
        (3050.0, 3.05, .durationElement),
        (4000.0, 4.0, .durationElement),
    ])
    func webMDurationElementAgainstBlocks(milliseconds: Double, seconds: Double, source: AudioMeasurement.Source) throws {
        var bytes = try Fixture.bytes("whisper-3s.webm")
        let at = try #require(index(of: [0x44, 0x89, 0x88], in: bytes)) + 3
        let pattern = milliseconds.bitPattern
        bytes[at..<(at + 8)] = ArraySlice((0..<8).map { UInt8(truncatingIfNeeded: pattern >> (56 - 8 * $0)) })
        let measured = try WebMProbe.measure(bytes)
        #expect(abs(measured.durationSeconds - seconds) < 0.001)
        #expect(measured.source == source)
    }

    @Test func webMTimecodeScaleZeroIsMalformed() throws {
        var bytes = try Fixture.bytes("whisper-3s.webm")
        let at = try #require(index(of: [0x2A, 0xD7, 0xB1, 0x83], in: bytes))
        bytes[(at + 4)..<(at + 7)] = [0, 0, 0]
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .malformed)
    }

    @Test(arguments: ["whisper-3s.mp4", "safari-3s-frag.mp4"])
    func mp4ZeroTimescaleIsMalformed(name: String) throws {
        var bytes = try Fixture.bytes(name)
        let at = try #require(index(of: Array("mdhd".utf8), in: bytes))
        #expect(bytes[at + 4] == 0, "fixture's mdhd is version 0")
        bytes[(at + 16)..<(at + 20)] = [0, 0, 0, 0]
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .malformed)
    }

    @Test func oggWithACorruptedPageFailsItsCRC() throws {
        var bytes = try Fixture.bytes("whisper-3s.opus.ogg")
        bytes[bytes.count - 10] ^= 0x40
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .malformed)
    }

    @Test func wavWithDataLargerThanTheFileIsTruncated() throws {
        var bytes = try Fixture.bytes("whisper-3s.wav")
        let at = try #require(index(of: Array("data".utf8), in: bytes))
        bytes[(at + 4)..<(at + 8)] = [0x00, 0x00, 0x00, 0x7F]
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .truncated)
    }

    /// Safari-style fragments whose trun has no per-sample durations: the tfhd default,
    /// else the trex default, times the sample count, over the mdhd timescale.
    @Test(arguments: [(nil as UInt32?, 3.008), (960, 2.82)])
    func fragmentDurationsFallBackToDefaults(tfhdDefault: UInt32?, seconds: Double) throws {
        let info = try MediaProbe.audio(MP4Builder.fragmented(samples: 141, trexDefault: 1024, tfhdDefault: tfhdDefault))
        #expect(info == AudioInfo(format: .mp4, durationSeconds: seconds, codec: "aac"))
    }

    @Test func mp4WithoutASoundTrackIsRefused() {
        let bytes = MP4Builder.box("ftyp", Array("isom".utf8) + [0, 0, 0, 0])
            + MP4Builder.box("moov", MP4Builder.box("mvhd", [UInt8](repeating: 0, count: 100)))
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .noAudioTrack)
    }
}

func index(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard needle.count <= haystack.count else { return nil }
    return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// True when some occurrence of the element ID `id` is followed by an unknown size
/// (a 1–8 byte EBML number with every value bit set).
func hasUnknownSize(_ bytes: [UInt8], after id: [UInt8]) -> Bool {
    var from = 0
    while let found = index(of: id, in: Array(bytes[from...])) {
        let at = from + found + id.count
        guard at < bytes.count else { return false }
        let length = bytes[at].leadingZeroBitCount + 1
        if length <= 8, at + length <= bytes.count, bytes[at] == 0xFF >> (length - 1),
           bytes[(at + 1)..<(at + length)].allSatisfy({ $0 == 0xFF }) {
            return true
        }
        from = at
    }
    return false
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool { index(of: needle, in: haystack) != nil }

/// Hand-built ISO BMFF boxes for hostile-input tests.
enum MP4Builder {
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + body.count)
        return be32(size) + Array(type.utf8) + body
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A fragmented AAC file at 48 kHz: empty moov (durations 0) with trex defaults,
    /// one moof whose trun lists `samples` samples without durations.
    static func fragmented(samples: UInt32, trexDefault: UInt32, tfhdDefault: UInt32?) -> [UInt8] {
        let zero4: [UInt8] = [0, 0, 0, 0]
        let mvhd = box("mvhd", zero4 + zero4 + zero4 + be32(1000) + zero4 + [UInt8](repeating: 0, count: 80))
        let tkhd = box("tkhd", zero4 + zero4 + zero4 + be32(1) + [UInt8](repeating: 0, count: 68))
        let mdhd = box("mdhd", zero4 + zero4 + zero4 + be32(48_000) + zero4 + zero4)
        let hdlr = box("hdlr", zero4 + zero4 + Array("soun".utf8) + [UInt8](repeating: 0, count: 13))
        let stsd = box("stsd", zero4 + be32(1) + box("mp4a", [UInt8](repeating: 0, count: 28)))
        let minf = box("minf", box("stbl", stsd))
        let trak = box("trak", tkhd + box("mdia", mdhd + hdlr + minf))
        let trex = box("trex", zero4 + be32(1) + be32(1) + be32(trexDefault) + zero4 + zero4)
        let moov = box("moov", mvhd + trak + box("mvex", trex))
        let tfhd = tfhdDefault.map { box("tfhd", [0, 0, 0, 0x08] + be32(1) + be32($0)) } ?? box("tfhd", zero4 + be32(1))
        let trun = box("trun", [0, 0, 0x02, 0x00] + be32(samples) + [UInt8](repeating: 0, count: Int(samples) * 4))
        let moof = box("moof", box("traf", tfhd + trun))
        return box("ftyp", Array("iso5".utf8) + zero4) + moov + moof + box("mdat", [])
    }
}
