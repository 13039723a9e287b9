import Foundation

/// A short audio clip: the bottle's 2–5 s whisper, or an audio chat attachment.
public struct AudioRef: Sendable, Equatable, Hashable, Codable {
    public enum Format: String, Sendable, Codable, CaseIterable {
        case ogg, webm, mp4, mpeg, wav
        public var mimeType: String { "audio/\(rawValue)" }
    }

    /// Allowed duration of a bottle whisper, seconds (inclusive).
    public static let whisperDuration: ClosedRange<Double> = 2.0...5.0
    /// Allowed duration of an audio chat attachment, seconds.
    public static let chatDuration: ClosedRange<Double> = 0.5...60.0
    /// Largest accepted audio file, bytes.
    public static let maximumBytes = 2 * 1024 * 1024

    public var path: MediaPath
    public var format: Format
    public var byteCount: Int
    /// Duration measured by the media layer, seconds.
    public var durationSeconds: Double

    public init(path: MediaPath, format: Format, byteCount: Int, durationSeconds: Double) {
        self.path = path
        self.format = format
        self.byteCount = byteCount
        self.durationSeconds = durationSeconds
    }

    /// Validates size and that the duration lies in `allowed`.
    public func validate(allowed: ClosedRange<Double>, field: String) throws(DomainValidationError) {
        guard (1...Self.maximumBytes).contains(byteCount) else {
            throw DomainValidationError(field: "\(field).byteCount", value: "\(byteCount)", problem: "must be 1 byte to 2 MiB")
        }
        guard durationSeconds.isFinite, allowed.contains(durationSeconds) else {
            throw DomainValidationError(field: "\(field).duration", value: Text.number(durationSeconds, decimals: 2) + " s",
                                        problem: "must be \(Text.number(allowed.lowerBound))–\(Text.number(allowed.upperBound)) s")
        }
    }
}
