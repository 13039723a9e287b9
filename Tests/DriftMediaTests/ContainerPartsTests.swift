@testable import DriftMedia
import Testing

@Suite struct ContainerPartsTests {
    /// RFC 6716 §3.1: config → frame size, code → frame count.
    @Test(arguments: [
        (UInt8(31 << 3 | 0), 20.0),  // CELT FB 20 ms, one frame
        (UInt8(31 << 3 | 1), 40.0),  // two frames
        (UInt8(16 << 3 | 0), 2.5),   // CELT NB 2.5 ms
        (UInt8(3 << 3 | 0), 60.0),   // SILK NB 60 ms
        (UInt8(13 << 3 | 2), 40.0),  // Hybrid SWB 20 ms, two frames
    ])
    func opusTOCGivesThePacketDuration(toc: UInt8, milliseconds: Double) {
        #expect(OpusPacket.durationNanoseconds(toc: toc) == milliseconds * 1_000_000)
    }

    @Test func opusCode3TakesTheFrameCountFromTheNextByte() {
        #expect(OpusPacket.durationNanoseconds(toc: 31 << 3 | 3, countByte: 0x83) == 60 * 1_000_000)  // 3 × 20 ms, VBR flag set
        #expect(OpusPacket.durationNanoseconds(toc: 31 << 3 | 3, countByte: 0x00) == 20 * 1_000_000)
        #expect(OpusPacket.durationNanoseconds(toc: 31 << 3 | 3) == 20 * 1_000_000)
    }

    @Test func mp3FrameHeaderGivesLengthAndRate() throws {
        // MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, no padding: 417 bytes, 1152 samples.
        let frame = try #require(MP3Probe.Frame(0xFFFB_9000))
        #expect(frame.length == 417 && frame.samples == 1152 && frame.sampleRate == 44_100)
        // MPEG-2 Layer III, 16 kbit/s, 22.05 kHz, padded: 72 * 16000 / 22050 + 1 = 53 bytes.
        let small = try #require(MP3Probe.Frame(0xFFF3_2200))
        #expect(small.length == 53 && small.samples == 576 && small.sampleRate == 22_050)
        #expect(MP3Probe.Frame(0xFFFD_9000) == nil, "Layer II is refused")
        #expect(MP3Probe.Frame(0xFFFB_0000) == nil, "free format is refused")
        #expect(MP3Probe.Frame(0xFFFB_9C00) == nil, "reserved sample rate")
    }

    @Test func crc32MatchesTheKnownCheckValue() {
        #expect(CRC32.checksum(ArraySlice("123456789".utf8)) == 0xCBF4_3926)
    }
}
