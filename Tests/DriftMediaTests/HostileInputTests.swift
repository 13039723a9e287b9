import DriftCore
@testable import DriftMedia
import Testing
import TestSupport

/// Any bytes at all: the probes return or throw, never crash, loop or balloon.
@Suite struct HostileInputTests {
    /// Every proper prefix of an image is refused: each format is walked to its end
    /// (JPEG EOI, PNG IEND, WebP RIFF size).
    @Test(arguments: Fixture.images)
    func everyImagePrefixIsRefused(name: String) async throws {
        let bytes = try Fixture.bytes(name)
        // Every prefix is seconds of CPU: it runs on the CPU lane, not on the cooperative
        // pool that the timers of the tests running alongside need.
        let accepted = await runCPUBound {
            (0..<bytes.count).filter { length in
                do {
                    _ = try MediaProbe.image(Array(bytes[..<length]))
                    return true
                } catch {
                    return false
                }
            }
        }
        #expect(accepted.isEmpty, "prefixes of \(accepted.prefix(10)) bytes were accepted")
    }

    /// Every prefix of an audio file throws or measures no more than the whole file
    /// (a live WebM has no sizes, so its prefixes are shorter recordings).
    @Test(arguments: Fixture.audio)
    func everyAudioPrefixThrowsOrIsShorter(name: String) async throws {
        let bytes = try Fixture.bytes(name)
        let whole = try MediaProbe.audio(bytes).durationSeconds
        let tooLong = await runCPUBound {
            (0..<bytes.count).filter { length in
                guard let info = try? MediaProbe.audio(Array(bytes[..<length])) else { return false }
                return !(info.durationSeconds >= 0 && info.durationSeconds <= whole + 0.05)
            }
        }
        #expect(tooLong.isEmpty, "prefixes of \(tooLong.prefix(10)) bytes measure longer than the whole file")
    }

    @Test(arguments: Fixture.images + Fixture.audio)
    func flippedBytesNeverCrash(name: String) async throws {
        let original = try Fixture.bytes(name)
        // On the CPU lane; what measured nonsense comes back as text.
        let nonsense = await runCPUBound { () -> [String] in
            var generator = SeededGenerator(seed: 0xD21F7 &+ UInt64(name.utf8.count))
            var nonsense: [String] = []
            for _ in 0..<300 {
                var bytes = original
                for _ in 0...Int.random(in: 0..<8, using: &generator) {
                    let at = Int.random(in: 0..<bytes.count, using: &generator)
                    bytes[at] ^= UInt8.random(in: 1...255, using: &generator)
                }
                if let image = try? MediaProbe.image(bytes), !(image.width > 0 && image.height > 0) {
                    nonsense.append("image \(image.width)×\(image.height)")
                }
                if let audio = try? MediaProbe.audio(bytes), audio.durationSeconds.isNaN || audio.durationSeconds < 0 {
                    nonsense.append("audio \(audio.durationSeconds) s")
                }
            }
            return nonsense
        }
        #expect(nonsense.isEmpty, "\(nonsense.prefix(10))")
    }

    @Test func randomBytesAfterEachMagicNeverCrash() async {
        let magics: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF], PNGProbe.signature, Array("RIFF\u{40}\0\0\0WEBP".utf8), Array("RIFF\u{40}\0\0\0WAVE".utf8),
            [0x1A, 0x45, 0xDF, 0xA3], [0, 0, 0, 0x10] + Array("ftyp".utf8), Array("OggS".utf8),
        ]
        await runCPUBound {
            var generator = SeededGenerator(seed: 42)
            for magic in magics {
                for _ in 0..<500 {
                    let tail = (0..<Int.random(in: 0..<256, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    _ = try? MediaProbe.image(magic + tail)
                    _ = try? MediaProbe.audio(magic + tail)
                }
            }
        }
    }

    /// An EBML header for a "webm" document.
    static let ebmlHeader: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x87, 0x42, 0x82, 0x84] + Array("webm".utf8)

    @Test func hugeEBMLSizeIsTruncatedNotAllocated() {
        // Segment of 2^56 - 2 bytes, then an Info element claiming nearly as much.
        let bytes = Self.ebmlHeader + [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]
            + [0x1F, 0x43, 0xB6, 0x75, 0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .truncated)

        let skipped = Self.ebmlHeader + [0x18, 0x53, 0x80, 0x67, 0xFF, 0xEC, 0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0x00]
        let second = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(skipped) }
        #expect(second?.code == .truncated)
    }

    @Test func invalidEBMLIDIsMalformed() {
        let bytes = Self.ebmlHeader + [0x18, 0x53, 0x80, 0x67, 0xFF, 0x00, 0x81, 0x00]
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .malformed)
    }

    @Test func deeplyNestedEBMLIsWalkedWithoutRecursion() {
        // 100 000 nested unknown-size BlockGroups inside an unknown-size Segment and Cluster.
        var bytes = Self.ebmlHeader + [0x18, 0x53, 0x80, 0x67, 0xFF, 0x1F, 0x43, 0xB6, 0x75, 0xFF]
        for _ in 0..<100_000 { bytes += [0xA0, 0xFF] }
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .noAudioTrack)
    }

    @Test func deeplyNestedMP4BoxesAreNotFollowed() {
        var inner = MP4Builder.box("free", [])
        for _ in 0..<2_000 { inner = MP4Builder.box("moov", inner) }
        let bytes = MP4Builder.box("ftyp", Array("isom".utf8) + [0, 0, 0, 0]) + inner
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .noAudioTrack)
    }

    @Test func mp4BoxLargerThanTheFileIsTruncated() {
        let bytes = MP4Builder.box("ftyp", Array("isom".utf8) + [0, 0, 0, 0])
            + [0x00, 0x00, 0x00, 0x01] + Array("moov".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .truncated)
    }

    @Test func trunWithMoreSamplesThanBytesIsTruncated() {
        let trun = MP4Builder.box("trun", [0x00, 0x00, 0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 4, 0])
        let traf = MP4Builder.box("traf", MP4Builder.box("tfhd", [0, 0, 0, 0, 0, 0, 0, 1]) + trun)
        let bytes = MP4Builder.box("ftyp", Array("isom".utf8) + [0, 0, 0, 0])
            + MP4Builder.box("moov", []) + MP4Builder.box("moof", traf)
        let error = #expect(throws: MediaProbeError.self) { try MediaProbe.audio(bytes) }
        #expect(error?.code == .truncated)
    }
}
