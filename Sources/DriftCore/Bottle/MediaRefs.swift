import Foundation

/// An image attached to a bottle or a chat line: where it is and what the media layer measured.
///
/// The domain validates the metadata (format, size, dimensions); the media layer
/// checks the file itself before building one of these.
public struct ImageRef: Sendable, Equatable, Hashable, Codable {
    public enum Format: String, Sendable, Codable, CaseIterable {
        case jpeg, png, webp
        public var mimeType: String { "image/\(rawValue)" }
    }

    /// Largest accepted image file (after the browser resized it), bytes.
    public static let maximumBytes = 3 * 1024 * 1024
    /// Longest accepted side, pixels.
    public static let maximumSide = 4096

    public var path: MediaPath
    public var format: Format
    public var byteCount: Int
    public var width: Int
    public var height: Int

    public init(path: MediaPath, format: Format, byteCount: Int, width: Int, height: Int) {
        self.path = path
        self.format = format
        self.byteCount = byteCount
        self.width = width
        self.height = height
    }

    public func validate() throws(DomainValidationError) {
        guard (1...Self.maximumBytes).contains(byteCount) else {
            throw DomainValidationError(field: "image.byteCount", value: "\(byteCount)", problem: "must be 1 byte to 3 MiB")
        }
        guard (1...Self.maximumSide).contains(width), (1...Self.maximumSide).contains(height) else {
            throw DomainValidationError(field: "image.size", value: "\(width)x\(height)", problem: "sides must be 1–\(Self.maximumSide) px")
        }
    }
}

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
