import Testing
import Foundation

/// A file from Tests/DriftMediaTests/Fixtures (made by scripts/make-media-fixtures.sh).
enum Fixture {
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures/\(name)")
        return [UInt8](try Data(contentsOf: url))
    }

    static let images = [
        "baseline-97x61.jpg", "progressive-97x61.jpg", "image-97x61.png",
        "lossy-97x61.webp", "lossless-97x61.webp", "alpha-97x61.webp",
    ]

    static let audio = [
        "chromium-1s.webm", "chromium-3s.webm", "chromium-9s.webm", "whisper-3s.webm",
        "whisper-3s.mp4", "safari-3s-frag.mp4", "whisper-3s.m4a", "whisper-3s.3gp",
        "whisper-3s.opus.ogg", "whisper-3s.vorbis.ogg", "whisper-3s.wav", "whisper-3s.mp3",
    ]
}
