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
