import DriftCore
@testable import DriftMedia
import Testing

@Suite struct ImageProbeTests {
    /// Sizes and formats as ffprobe reports them (scripts/make-media-fixtures.sh prints them).
    @Test(arguments: [
        ("baseline-97x61.jpg", ImageRef.Format.jpeg),
        ("progressive-97x61.jpg", .jpeg),
        ("image-97x61.png", .png),
        ("lossy-97x61.webp", .webp),
        ("lossless-97x61.webp", .webp),
        ("alpha-97x61.webp", .webp),
    ])
    func fixtureIsMeasured(name: String, format: ImageRef.Format) throws {
        let info = try MediaProbe.image(Fixture.bytes(name))
        #expect(info == ImageInfo(format: format, width: 97, height: 61))
    }

    @Test func webPFixturesUseEachChunkKind() throws {
        #expect(try Fixture.bytes("lossy-97x61.webp")[12..<16].elementsEqual("VP8 ".utf8))
        #expect(try Fixture.bytes("lossless-97x61.webp")[12..<16].elementsEqual("VP8L".utf8))
        #expect(try Fixture.bytes("alpha-97x61.webp")[12..<16].elementsEqual("VP8X".utf8))
    }

    @Test func progressiveJPEGHasAProgressiveFrameHeader() throws {
        let bytes = try Fixture.bytes("progressive-97x61.jpg")
        #expect(zip(bytes, bytes.dropFirst()).contains { $0 == 0xFF && $1 == 0xC2 })
    }

    @Test func wrongMagicIsUnknownFormat() throws {
        for bytes: [UInt8] in [[], [0xFF], Array("hello world".utf8), [0x89, 0x50, 0x4E, 0x46], try Fixture.bytes("whisper-3s.wav")] {
            #expect(throws: MediaProbeError(.unknownFormat, "not a JPEG, PNG or WebP image")) { try MediaProbe.image(bytes) }
        }
    }

    @Test func errorSaysWhatWasWrong() {
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.image(Array("GIF89a".utf8)) }
        #expect(error?.description == "unknownFormat: not a JPEG, PNG or WebP image")
    }

    @Test func pngWithBadCRCIsMalformed() throws {
        var bytes = try Fixture.bytes("image-97x61.png")
        bytes[16] ^= 0x01  // a byte of IHDR's width
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.image(bytes) }
        #expect(error?.code == .malformed)
    }

    @Test func pngChunkLongerThanTheFileIsTruncated() throws {
        var bytes = try Fixture.bytes("image-97x61.png")
        bytes[8..<12] = [0x00, 0x10, 0x00, 0x00]  // IHDR claims 1 MiB
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.image(bytes) }
        #expect(error?.code == .truncated)
    }

    @Test func webPRIFFSizeLargerThanTheFileIsTruncated() throws {
        var bytes = try Fixture.bytes("lossy-97x61.webp")
        bytes[4..<8] = [0xFF, 0xFF, 0xFF, 0x7F]
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.image(bytes) }
        #expect(error?.code == .truncated)
    }

    @Test func jpegScanBeforeFrameHeaderIsMalformed() {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0x00, 0xFF, 0xD9]
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.image(bytes) }
        #expect(error?.code == .malformed)
    }

    @Test func jpegWithZeroHeightIsUnsupported() {
        // SOI, SOF0 with height 0 (the DNL form), EOI.
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x00, 0x00, 0x10, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9]
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.image(bytes) }
        #expect(error?.code == .unsupported)
    }

    @Test func jpegSkipsAppAndCommentSegments() throws {
        // SOI, APP1 (4 bytes of payload), COM, SOF2 40x30, EOI.
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x06, 0xFF, 0xC0, 0xFF, 0xFF,
                              0xFF, 0xFE, 0x00, 0x03, 0x41,
                              0xFF, 0xC2, 0x00, 0x0B, 0x08, 0x00, 0x1E, 0x00, 0x28, 0x01, 0x01, 0x11, 0x00,
                              0xFF, 0xD9]
        #expect(try MediaProbe.image(bytes) == ImageInfo(format: .jpeg, width: 40, height: 30))
    }
}
